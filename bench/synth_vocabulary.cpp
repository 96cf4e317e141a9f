#include "bench/synth_vocabulary.h"

#include <fmt/format.h>

#include <map>
#include <stdexcept>
#include <string>
#include <utility>

#include "engine/format/gguf_file.h"
#include "engine/text/vocabulary.h"

namespace hearth::bench {
namespace {

// Pads the per-token arrays of a copied vocabulary; merges and special ids stay as they were.
void pad_token_arrays(std::map<std::string, GgufValue>& keys, size_t size) {
    const auto pad = [&](const char* key, auto make_item) {
        const auto found = keys.find(key);
        if (found == keys.end() || found->second.as_array() == nullptr) return;
        GgufArray array = *found->second.as_array();
        while (array.size() < size) array.push_back(make_item(array.size()));
        found->second = GgufValue(std::move(array));
    };
    pad("tokenizer.ggml.tokens", [](size_t id) { return GgufValue(fmt::format("[PAD{}]", id)); });
    pad("tokenizer.ggml.token_type",
        [](size_t) { return GgufValue(static_cast<int32_t>(TokenKind::Unused)); });
    pad("tokenizer.ggml.scores", [](size_t) { return GgufValue(0.0f); });
}

}  // namespace

void copy_vocabulary(const std::filesystem::path& source, int size, GgufWriter& writer) {
    const GgufFile file(source);
    std::map<std::string, GgufValue> keys;
    for (const auto& [key, value] : file.metadata()) {
        if (key.starts_with("tokenizer.")) keys.emplace(key, value);
    }
    const auto* tokens = file.get_array("tokenizer.ggml.tokens");
    if (tokens == nullptr) throw std::runtime_error(source.string() + ": no tokenizer.ggml.tokens");
    if (tokens->size() > static_cast<size_t>(size)) {
        throw std::runtime_error(fmt::format("{}: {} tokens, more than the model's {} rows",
                                             source.string(), tokens->size(), size));
    }
    pad_token_arrays(keys, static_cast<size_t>(size));
    for (auto& [key, value] : keys) writer.set(key, std::move(value));
}

void write_synthetic_spm_vocabulary(int size, GgufWriter& writer) {
    GgufArray pieces(GgufValueType::String), scores(GgufValueType::Float32),
        kinds(GgufValueType::Int32);
    const auto add = [&](const std::string& piece, TokenKind kind) {
        if (pieces.size() == static_cast<size_t>(size)) return;
        // Earlier pieces score higher, so SentencePiece's merges take short ones first.
        scores.push_back(
            GgufValue(kind == TokenKind::Normal ? -static_cast<float>(pieces.size()) : 0.0f));
        pieces.push_back(piece);
        kinds.push_back(GgufValue(static_cast<int32_t>(kind)));
    };
    for (const char* special : {"<pad>", "<eos>", "<bos>"}) add(special, TokenKind::Control);
    add("<unk>", TokenKind::Unknown);
    add("<start_of_turn>", TokenKind::Control);
    add("<end_of_turn>", TokenKind::Control);
    // Byte fallback: any text can be written, whatever pieces follow.
    for (int byte = 0; byte < 256; ++byte) add(fmt::format("<0x{:02X}>", byte), TokenKind::Byte);
    const std::string word_start = "\xE2\x96\x81";  // U+2581, SentencePiece's space
    add(word_start, TokenKind::Normal);
    for (char c = '!'; c <= '~'; ++c) {
        add(std::string(1, c), TokenKind::Normal);
        add(word_start + c, TokenKind::Normal);
    }
    // Lower-case strings, shortest first, each also as a word start, until the table is full:
    // every piece is two shorter ones joined, so the merges reach all of them.
    for (size_t length = 2; pieces.size() < static_cast<size_t>(size); ++length) {
        std::string text(length, 'a');
        for (bool more = true; more && pieces.size() < static_cast<size_t>(size);) {
            add(word_start + text, TokenKind::Normal);
            add(text, TokenKind::Normal);
            size_t i = length;
            while (i > 0 && text[i - 1] == 'z') text[--i] = 'a';
            more = i > 0;
            if (more) ++text[i - 1];
        }
    }
    writer.set("tokenizer.ggml.model", GgufValue(std::string("llama")));
    writer.set("tokenizer.ggml.pre", GgufValue(std::string("default")));
    writer.set("tokenizer.ggml.tokens", GgufValue(std::move(pieces)));
    writer.set("tokenizer.ggml.scores", GgufValue(std::move(scores)));
    writer.set("tokenizer.ggml.token_type", GgufValue(std::move(kinds)));
    const std::pair<const char*, uint32_t> ids[] = {{"tokenizer.ggml.padding_token_id", 0},
                                                    {"tokenizer.ggml.eos_token_id", 1},
                                                    {"tokenizer.ggml.bos_token_id", 2},
                                                    {"tokenizer.ggml.unknown_token_id", 3}};
    for (const auto& [key, id] : ids) writer.set(key, GgufValue(id));
    writer.set("tokenizer.ggml.add_bos_token", GgufValue(true));
    writer.set("tokenizer.ggml.add_eos_token", GgufValue(false));
    // Gemma's SentencePiece model adds no space before the text.
    writer.set("tokenizer.ggml.add_space_prefix", GgufValue(false));
}

}  // namespace hearth::bench
