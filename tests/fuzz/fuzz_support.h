// What the fuzz targets share: where ../shared is, the real inputs loaded from it once per
// process (vocabularies, chat templates), and a reader that takes a fuzz input apart field by
// field.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engine/text/chat_template.h"
#include "engine/text/tokenizer.h"

namespace hearth::fuzz {

// $HEARTH_SHARED_DIR, else the ../shared the build was configured with.
std::filesystem::path shared_dir();
// The files in `directory` whose names end with `suffix`, sorted by name.
std::vector<std::filesystem::path> files_ending(const std::filesystem::path& directory,
                                                std::string_view suffix);
std::string read_file(const std::filesystem::path& path);
// Engine warnings (a template falling back, an ignored key) would flood the fuzzer's output.
void silence_logs();

struct NamedTokenizer {
    std::string name;  // the vocabulary file's name
    std::unique_ptr<Tokenizer> tokenizer;
};
// Every vocabulary in shared/fixtures/tokenizer that Hearth loads (one per pre-tokenizer the
// shared files use, SentencePiece ones included), in file-name order.
const std::vector<NamedTokenizer>& shared_tokenizers();
// A small real vocabulary (the bundled TinyStories model's SentencePiece one, 512 tokens).
const Tokenizer& small_tokenizer();

struct TemplateFixture {
    std::string name;  // the fixture's file name without .json
    std::string source;
    std::string bos_token;
    std::string eos_token;
};
// The real chat templates of shared/fixtures/chat_templates, in file-name order.
const std::vector<TemplateFixture>& template_fixtures();

struct UsableTemplate {
    std::string name;
    std::unique_ptr<ChatTemplate> compiled;
};
// Those of the fixtures' templates that Hearth can render (itself, or by the built-in format of
// their family), compiled once, in file-name order; the others are listed in the normal suite's
// unsupported_files.cpp.
const std::vector<UsableTemplate>& chat_templates();

// Takes a fuzz input apart: fixed-size fields from the front, the rest as text.
class FuzzInput {
public:
    FuzzInput(const uint8_t* data, size_t size) : m_data(data), m_size(size) {}

    size_t remaining() const { return m_size - m_position; }
    // The next byte, or 0 once the input is used up.
    uint8_t byte();
    // The next little-endian 32-bit value (missing bytes are zero).
    uint32_t word();
    // Up to `count` bytes.
    std::string_view take(size_t count);
    std::string_view rest() { return take(remaining()); }

private:
    const uint8_t* m_data;
    size_t m_size;
    size_t m_position = 0;
};

}  // namespace hearth::fuzz
