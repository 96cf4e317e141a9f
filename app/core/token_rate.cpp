#include "app/core/token_rate.h"

#include <algorithm>

namespace hearth::core {

std::vector<double> token_latencies_ms(const std::vector<int64_t>& times_ns) {
    std::vector<double> latencies;
    for (size_t i = 1; i < times_ns.size(); ++i)
        latencies.push_back((times_ns[i] - times_ns[i - 1]) / 1e6);
    return latencies;
}

std::vector<double> per_token_rates(const std::vector<int64_t>& times_ns) {
    std::vector<double> rates;
    for (const double latency : token_latencies_ms(times_ns)) {
        rates.push_back(latency > 0 ? 1000.0 / latency : 0.0);
    }
    return rates;
}

std::vector<double> moving_average(const std::vector<double>& values, int window) {
    std::vector<double> averages;
    double sum = 0;
    for (size_t i = 0; i < values.size(); ++i) {
        sum += values[i];
        if (i >= static_cast<size_t>(window)) sum -= values[i - static_cast<size_t>(window)];
        averages.push_back(
            sum / static_cast<double>(std::min<size_t>(i + 1, static_cast<size_t>(window))));
    }
    return averages;
}

Histogram histogram(const std::vector<double>& values, int bins) {
    Histogram result;
    result.counts.assign(static_cast<size_t>(std::max(bins, 1)), 0);
    if (values.empty()) return result;
    const auto [low, high] = std::minmax_element(values.begin(), values.end());
    result.low = *low;
    result.width = *high > *low ? (*high - *low) / static_cast<double>(result.counts.size()) : 1.0;
    for (const double value : values) {
        auto bin = static_cast<size_t>((value - result.low) / result.width);
        ++result.counts[std::min(bin, result.counts.size() - 1)];
    }
    return result;
}

}  // namespace hearth::core
