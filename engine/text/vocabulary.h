// The token table a GGUF file carries (tokenizer.ggml.*), validated once at load.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/format/gguf_file.h"
#include "engine/format/string_table.h"

namespace hearth {

// Values serialised in GGUF files (tokenizer.ggml.token_type): do not change or reuse.
enum class TokenKind : int32_t {
    Undefined = 0,
    Normal = 1,
    Unknown = 2,
    Control = 3,
    UserDefined = 4,
    Unused = 5,
    Byte = 6,
};

struct Vocabulary {
    std::string model;          // tokenizer.ggml.model: "llama" (SentencePiece), "gpt2" (BPE), …
    std::string pre_tokenizer;  // tokenizer.ggml.pre
    StringTable tokens;         // the text of each token id
    std::vector<float> scores;
    std::vector<TokenKind> kinds;
    std::vector<std::string> merges;  // BPE only: "left right", highest priority first
    int32_t bos = -1;
    int32_t eos = -1;
    int32_t eot = -1;
    int32_t unknown = -1;
    int32_t padding = -1;
    // Tokens that end a reply: EOS, EOT/EOM and the end-of-turn markers chat formats print
    // ("<|im_end|>", "<|eot_id|>", "<end_of_turn>", …), as the model's own vocabulary has them.
    std::vector<int32_t> end_of_generation;
    bool add_bos = true;
    bool add_eos = false;
    bool add_space_prefix = true;

    static Vocabulary from_gguf(const GgufFile& file);
    int32_t size() const { return static_cast<int32_t>(tokens.size()); }
    bool valid(int32_t id) const { return id >= 0 && id < size(); }
    // The first token with this text, or -1.
    int32_t id_of(std::string_view text) const;
};

}  // namespace hearth
