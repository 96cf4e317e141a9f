// The tokenizer fixture format: X.gguf.inp holds texts separated by a line
// "__ggml_vocab_test__"; X.gguf.out holds one line of expected ids per text.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace hearth::test {

struct TokenizerCase {
    std::string text;
    std::vector<int32_t> ids;
};

std::vector<TokenizerCase> load_tokenizer_cases(const std::filesystem::path& vocabulary);

}  // namespace hearth::test
