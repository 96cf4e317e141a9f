#include "engine/generation/prefill_planner.h"

#include <algorithm>
#include <stdexcept>

namespace hearth {

std::vector<PrefillStep> plan_prefill(int prompt_length, int cached,
                                      std::span<const int> variants) {
    if (variants.empty() ||
        std::any_of(variants.begin(), variants.end(), [](int v) { return v <= 0; })) {
        throw std::invalid_argument("prefill variants must be positive chunk sizes");
    }
    if (cached < 0 || cached > prompt_length)
        throw std::invalid_argument("cached tokens outside the prompt");
    std::vector<int> sizes(variants.begin(), variants.end());
    std::sort(sizes.begin(), sizes.end());
    const int largest = sizes.back();
    std::vector<PrefillStep> steps;
    int start = 0;
    int remaining = prompt_length - cached;
    while (remaining > 0) {
        const int variant = remaining >= largest
                                ? largest
                                : *std::lower_bound(sizes.begin(), sizes.end(), remaining);
        const int tokens = std::min(variant, remaining);
        steps.push_back({start, tokens, variant});
        start += tokens;
        remaining -= tokens;
    }
    return steps;
}

std::vector<PrefillCall> group_prefill_steps(std::span<const PrefillStep> steps, int batch_tokens) {
    std::vector<PrefillCall> calls;
    for (size_t s = 0; s < steps.size();) {
        PrefillCall call{steps[s].start, steps[s].tokens};
        for (++s; s < steps.size() && call.tokens + steps[s].tokens <= batch_tokens; ++s)
            call.tokens += steps[s].tokens;
        calls.push_back(call);
    }
    return calls;
}

}  // namespace hearth
