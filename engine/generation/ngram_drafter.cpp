#include "engine/generation/ngram_drafter.h"

#include <algorithm>

namespace hearth {

std::vector<int32_t> draft_by_lookup(std::span<const int32_t> history,
                                     const DraftSettings& settings) {
    const int size = static_cast<int>(history.size());
    for (int n = std::min(settings.max_ngram, size - 1); n >= std::max(settings.min_ngram, 1);
         --n) {
        const auto suffix = history.subspan(static_cast<size_t>(size - n));
        // Most recent first: the nearest context predicts best.
        for (int start = size - n - 1; start >= 0; --start) {
            if (!std::equal(suffix.begin(), suffix.end(), history.begin() + start)) continue;
            const int from = start + n;
            const int count = std::min(settings.max_tokens, size - from);
            return {history.begin() + from, history.begin() + from + count};
        }
    }
    return {};
}

}  // namespace hearth
