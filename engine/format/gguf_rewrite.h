// A GGUF file written again with a few metadata changes and every tensor as it was: another
// chat template, some tokens' texts or kinds. Tests use it to run a real model behind a template
// it did not ship with; the screenshot tour to show a reasoning model's Thinking block.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <set>
#include <string>

#include "engine/format/gguf_file.h"

namespace hearth {

struct GgufRewrite {
    std::string chat_template;                   // tokenizer.chat_template
    std::map<int32_t, std::string> token_texts;  // id -> new text
    std::set<int32_t> control_tokens;            // ids made control tokens
};

// Throws std::out_of_range for an id past the vocabulary, std::invalid_argument when control
// tokens are asked of a token_type array that is not int32 (as every converter writes it),
// std::runtime_error naming `out` when it cannot be written.
void write_rewritten(const GgufFile& source, const std::filesystem::path& out,
                     const GgufRewrite& rewrite);

}  // namespace hearth
