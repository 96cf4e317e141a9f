#include "engine/generation/overflow_planner.h"

#include <algorithm>

namespace hearth {

std::optional<DropRange> plan_overflow(int size, int keep, int needed, int protect,
                                       std::span<const int> turn_starts) {
    keep = std::max(keep, 0);
    const int limit = size - std::max(protect, 0);  // the drop must end at or before this
    if (needed <= 0 || keep + needed > limit) return std::nullopt;
    int end = keep + needed;
    const auto boundary = std::lower_bound(turn_starts.begin(), turn_starts.end(), end);
    if (boundary != turn_starts.end() && *boundary <= limit) end = *boundary;
    return DropRange{keep, end - keep};
}

}  // namespace hearth
