// Generation requests the session tests build again and again.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/generation/generation_request.h"

namespace hearth::test {

// Greedy decoding of up to `max_tokens` after `prompt`.
GenerationRequest greedy(std::vector<int32_t> prompt, int max_tokens);

// A BOS (id 1) and `length - 1` ordinary ids below 503 that follow from `salt`: prompts of any
// length for models whose vocabularies hold those ids.
std::vector<int32_t> salted_prompt(int length, int salt);

}  // namespace hearth::test
