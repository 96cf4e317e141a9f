#include "tests/fuzz/fuzz_support.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "engine/format/gguf_file.h"
#include "engine/model/load_error.h"
#include "engine/text/jinja/json.h"

namespace hearth::fuzz {
namespace {

std::string string_field(const jinja::Value& object, const std::string& key) {
    const jinja::Value* value = object.as_object().find(key);
    return value != nullptr && value->is_string() ? value->as_string() : std::string{};
}

}  // namespace

std::filesystem::path shared_dir() {
    if (const char* configured = std::getenv("HEARTH_SHARED_DIR")) return configured;
    return HEARTH_DEFAULT_SHARED_DIR;
}

std::vector<std::filesystem::path> files_ending(const std::filesystem::path& directory,
                                                std::string_view suffix) {
    std::vector<std::filesystem::path> files;
    for (const auto& entry : std::filesystem::directory_iterator(directory)) {
        if (entry.is_regular_file() && entry.path().filename().string().ends_with(suffix)) {
            files.push_back(entry.path());
        }
    }
    std::sort(files.begin(), files.end());
    return files;
}

std::string read_file(const std::filesystem::path& path) {
    std::ifstream stream(path, std::ios::binary);
    if (!stream) throw std::runtime_error("cannot read " + path.string());
    std::ostringstream text;
    text << stream.rdbuf();
    return text.str();
}

void silence_logs() {
    spdlog::set_level(spdlog::level::off);
}

const std::vector<NamedTokenizer>& shared_tokenizers() {
    static const std::vector<NamedTokenizer> tokenizers = [] {
        std::vector<NamedTokenizer> loaded;
        for (const auto& path : files_ending(shared_dir() / "fixtures" / "tokenizer", ".gguf")) {
            try {
                const GgufFile file(path, {.prefault = false});
                loaded.push_back({path.filename().string(), make_tokenizer(file)});
            } catch (const LoadError& error) {
                // A vocabulary Hearth refuses by name (an unknown pre-tokenizer) has nothing to
                // fuzz; the normal suite checks the refusal.
                std::fprintf(stderr, "fuzz: skipping %s\n", error.what());
            }
        }
        if (loaded.empty()) {
            std::fprintf(stderr, "fuzz: no vocabulary under %s\n", shared_dir().c_str());
            std::abort();
        }
        return loaded;
    }();
    return tokenizers;
}

const Tokenizer& small_tokenizer() {
    static const std::unique_ptr<Tokenizer> tokenizer = [] {
        const GgufFile file(std::filesystem::path(HEARTH_BUILD_MODEL_DIR) / "stories260K.gguf",
                            {.prefault = false});
        return make_tokenizer(file);
    }();
    return *tokenizer;
}

const std::vector<TemplateFixture>& template_fixtures() {
    static const std::vector<TemplateFixture> fixtures = [] {
        std::vector<TemplateFixture> loaded;
        for (const auto& path :
             files_ending(shared_dir() / "fixtures" / "chat_templates", ".json")) {
            const jinja::Value fixture = jinja::parse_json(read_file(path));
            loaded.push_back({path.stem().string(), string_field(fixture, "template"),
                              string_field(fixture, "bos_token"),
                              string_field(fixture, "eos_token")});
        }
        if (loaded.empty()) {
            std::fprintf(stderr, "fuzz: no chat template under %s\n", shared_dir().c_str());
            std::abort();
        }
        return loaded;
    }();
    return fixtures;
}

const std::vector<UsableTemplate>& chat_templates() {
    static const std::vector<UsableTemplate> usable = [] {
        std::vector<UsableTemplate> compiled;
        for (const auto& fixture : template_fixtures()) {
            try {
                compiled.push_back(
                    {fixture.name, std::make_unique<ChatTemplate>(fixture.source, fixture.bos_token,
                                                                  fixture.eos_token)});
            } catch (const jinja::RenderError& error) {
                std::fprintf(stderr, "fuzz: skipping %s: %s\n", fixture.name.c_str(), error.what());
            }
        }
        return compiled;
    }();
    return usable;
}

uint8_t FuzzInput::byte() {
    return m_position < m_size ? m_data[m_position++] : 0;
}

uint32_t FuzzInput::word() {
    uint32_t value = 0;
    for (int shift = 0; shift < 32; shift += 8) value |= static_cast<uint32_t>(byte()) << shift;
    return value;
}

std::string_view FuzzInput::take(size_t count) {
    count = std::min(count, remaining());
    const std::string_view bytes(reinterpret_cast<const char*>(m_data + m_position), count);
    m_position += count;
    return bytes;
}

}  // namespace hearth::fuzz
