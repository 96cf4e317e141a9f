// Splits a prompt into prefill steps over a fixed set of chunk sizes ("variants"), so that a
// backend only ever runs shapes it has prepared: full steps of the largest variant, then the
// smallest variant that holds the rest. With {1, 8, 64}: 200 -> 64, 64, 64, 8; 50 -> 64 (50 used).
#pragma once

#include <span>
#include <vector>

namespace hearth {

struct PrefillStep {
    int start = 0;    // offset into the new tokens
    int tokens = 0;   // how many of them this step processes
    int variant = 0;  // the chunk size it runs as (tokens <= variant)

    bool operator==(const PrefillStep&) const = default;
};

// `prompt_length` tokens of which the first `cached` are already in the KV cache. `variants`
// must be positive; their order does not matter. Throws std::invalid_argument otherwise.
std::vector<PrefillStep> plan_prefill(int prompt_length, int cached, std::span<const int> variants);

// A span of new tokens that goes to the backend in one forward call.
struct PrefillCall {
    int start = 0;
    int tokens = 0;
    bool operator==(const PrefillCall&) const = default;
};

// The steps as forward calls: one step per call when `batch_tokens` is 0 (progress and cancel
// between steps), else as many consecutive steps as fit `batch_tokens` (a device backend's
// steps go back to back with one wait). A step larger than the batch is a call of its own.
std::vector<PrefillCall> group_prefill_steps(std::span<const PrefillStep> steps, int batch_tokens);

}  // namespace hearth
