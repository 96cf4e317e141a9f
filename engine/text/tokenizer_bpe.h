// Byte-level BPE vocabularies (tokenizer.ggml.model = "gpt2": GPT-2, Llama 3, Qwen2, DeepSeek,
// Falcon, StarCoder, …): pre-tokenize, map bytes to printable characters, apply the merges.
#pragma once

#include <array>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "engine/text/pre_tokenizer.h"
#include "engine/text/tokenizer.h"

namespace hearth {

class BpeTokenizer final : public Tokenizer {
public:
    // Throws std::invalid_argument for an unknown pre-tokenizer or malformed merges.
    explicit BpeTokenizer(Vocabulary vocabulary);

    std::vector<int32_t> encode(std::string_view text, EncodeOptions options) const override;

private:
    std::string text_piece(int32_t id) const override;
    void encode_piece(std::string_view piece, std::vector<int32_t>& out) const;
    // (begin, length) of each symbol of `text` (in stand-in characters) once merged.
    std::vector<std::pair<size_t, size_t>> merged_symbols(const std::string& text) const;

    PreTokenizer m_pre_tokenizer;
    bool m_ignore_merges;  // Llama 3: a piece that is already a token is not merged
    std::unordered_map<std::string, int> m_merge_ranks;  // "left right" -> priority
    std::unordered_map<std::string, int32_t> m_token_ids;
    std::array<std::string, 256> m_byte_text;  // byte -> its printable stand-in (UTF-8)
    std::unordered_map<char32_t, uint8_t> m_text_byte;
};

}  // namespace hearth
