// A shared model given another chat template: the shared models carry none of the templates
// that read enable_thinking (Qwen3's, SmolLM3's), so tests that run a chat through the engine
// with one write a copy of a model whose weights the engine runs, the template added.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <set>
#include <string>

#include "tests/support/temp_files.h"
#include "tests/support/template_fixtures.h"

namespace hearth::test {

// `model` (a file in shared/models) written under `directory` with `chat_template` as its
// tokenizer.chat_template; every other key and every tensor as in the original.
std::filesystem::path model_with_template(const TempDirectory& directory, const std::string& model,
                                          const std::string& chat_template);

// As above, with the texts of some tokens replaced (id -> text): a real model's greedy output
// made to carry a marker (`</think>`) at a known place, its weights untouched. Tokens in
// `control` become control tokens (as chat formats' markers are).
std::filesystem::path model_with_template(const TempDirectory& directory, const std::string& model,
                                          const std::string& chat_template,
                                          const std::map<int32_t, std::string>& token_texts,
                                          const std::set<int32_t>& control = {});

}  // namespace hearth::test
