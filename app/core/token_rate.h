// The numbers behind the performance dashboard's charts, from the decode loop's per-token
// timestamps: instantaneous rates, their moving average and a latency histogram.
#pragma once

#include <cstdint>
#include <vector>

namespace hearth::core {

// tokens/s between each token and the one before it (one value fewer than timestamps).
std::vector<double> per_token_rates(const std::vector<int64_t>& times_ns);
// Per-token latencies in milliseconds (one value fewer than timestamps).
std::vector<double> token_latencies_ms(const std::vector<int64_t>& times_ns);
// Mean of each value and the `window - 1` before it.
std::vector<double> moving_average(const std::vector<double>& values, int window);

struct Histogram {
    double low = 0;    // left edge of the first bin
    double width = 1;  // of each bin
    std::vector<int> counts;
};
// `bins` equal bins from the smallest to the largest value (the largest lands in the last).
Histogram histogram(const std::vector<double>& values, int bins);

}  // namespace hearth::core
