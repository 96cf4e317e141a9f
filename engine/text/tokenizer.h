// Text <-> token ids for one model. Implementations: SentencePiece vocabularies
// (tokenizer_spm); other families are refused by name until they are implemented.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/format/gguf_file.h"
#include "engine/text/vocabulary.h"

namespace hearth {

struct EncodeOptions {
    bool add_special = true;     // BOS/EOS as the vocabulary asks
    bool parse_special = false;  // recognise control-token text such as "<s>" (templates only)
    // Byte ranges [first, second) of the text where special-token text stays plain text: the
    // places a chat template copied the user's own words to.
    std::span<const std::pair<size_t, size_t>> plain_ranges = {};
};

class Tokenizer {
public:
    virtual ~Tokenizer() = default;

    virtual std::vector<int32_t> encode(std::string_view text, EncodeOptions options) const = 0;
    // The bytes one token stands for; special tokens give their text only when `special`.
    std::string token_to_piece(int32_t id, bool special = false) const;

    const Vocabulary& vocabulary() const { return m_vocabulary; }
    bool is_end_of_generation(int32_t id) const;
    // Concatenated pieces (not UTF-8-repaired: feed a Utf8Buffer for streaming).
    std::string decode(std::span<const int32_t> ids, bool special = false) const;

protected:
    explicit Tokenizer(Vocabulary vocabulary);

    // The bytes of an ordinary (normal or byte) token, in the family's own encoding.
    virtual std::string text_piece(int32_t id) const = 0;

    // A stretch of input: plain text to tokenize, or a special token recognised in it.
    struct Fragment {
        std::string_view text;
        int32_t token = -1;  // -1: plain text
    };
    // Cuts out user-defined tokens always and control tokens when `parse_special`, longest
    // token first, as llama.cpp does.
    std::vector<Fragment> partition(std::string_view text, const EncodeOptions& options) const;

private:
    Vocabulary m_vocabulary;
    std::vector<int32_t> m_special_tokens;  // control and user-defined, longest text first
};

// Builds the tokenizer the file's metadata names. Throws LoadError for an unknown or
// unsupported tokenizer, never falling back to one that would mis-tokenize.
std::unique_ptr<Tokenizer> make_tokenizer(const GgufFile& file);

}  // namespace hearth
