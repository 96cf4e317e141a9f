// Where speculative decoding's guesses come from. The decode loop verifies whatever a drafter
// proposes in one batched pass and keeps only what the model itself would have chosen, so a
// drafter changes speed, never the answer. Without one the loop looks the guesses up in the
// conversation (ngram_drafter.h).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace hearth {

class Drafter {
public:
    virtual ~Drafter() = default;
    // Up to `max_tokens` tokens guessed to follow `history` (the conversation so far, the
    // token about to be fed last). May return fewer, or none.
    virtual std::vector<int32_t> propose(std::span<const int32_t> history, int max_tokens) = 0;
};

}  // namespace hearth
