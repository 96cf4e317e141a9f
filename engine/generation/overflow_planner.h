// Which cache positions to drop when a conversation outgrows the context: a pure function, so
// the policy can be tested without a model. Positions are cache positions.
#pragma once

#include <optional>
#include <span>

namespace hearth {

struct DropRange {
    int start = 0;
    int count = 0;
    bool operator==(const DropRange&) const = default;
};

// Drops at least `needed` positions of `size`, starting right after the first `keep`, and never
// any of the last `protect`. The end moves forward to the next turn boundary (sorted cache
// positions where messages begin) when that stays clear of the protected tail, so whole turns
// go rather than half a message. Nothing when `needed` positions cannot be found.
std::optional<DropRange> plan_overflow(int size, int keep, int needed, int protect,
                                       std::span<const int> turn_starts);

}  // namespace hearth
