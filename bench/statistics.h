// Median and spread of repeated measurements.
#pragma once

#include <algorithm>
#include <vector>

namespace hearth::bench {

struct Summary {
    double median = 0, low = 0, high = 0;
};

inline Summary summarise(std::vector<double> values) {
    if (values.empty()) return {};
    std::sort(values.begin(), values.end());
    return {values[values.size() / 2], values.front(), values.back()};
}

}  // namespace hearth::bench
