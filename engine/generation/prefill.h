// Feeding a prompt to a backend the way the decode loop does: the planner's steps, grouped
// into calls as the backend asks (a device backend submits several back to back), with a
// check before each call and a progress report after it. The LM head runs on the last row of
// the last call only. The decode loop and the speed measurement both go through here, so a
// measured prefill is the one users get.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <vector>

#include "engine/compute/backend.h"

namespace hearth {

struct PrefillHooks {
    std::function<bool()> proceed;                      // before each call; false stops
    std::function<bool(int done, int total)> progress;  // after each call; false stops
};

// The last call's logits, or nothing when a hook stopped the prefill.
std::optional<std::vector<float>> run_prefill(Backend& backend, Sequence& sequence,
                                              std::span<const int32_t> tokens,
                                              const PrefillHooks& hooks = {});

}  // namespace hearth
