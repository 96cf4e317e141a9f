#include "app/core/token_rate.h"

#include <gtest/gtest.h>

namespace hearth::core {
namespace {

TEST(TokenRate, RatesAndLatenciesComeFromConsecutiveTimestamps) {
    const std::vector<int64_t> times{0, 10'000'000, 30'000'000, 35'000'000};  // ns
    EXPECT_EQ(token_latencies_ms(times), (std::vector<double>{10, 20, 5}));
    EXPECT_EQ(per_token_rates(times), (std::vector<double>{100, 50, 200}));
    EXPECT_TRUE(per_token_rates({7}).empty());
}

TEST(TokenRate, MovingAverageUsesTheLastWindowValues) {
    EXPECT_EQ(moving_average({2, 4, 6, 8}, 2), (std::vector<double>{2, 3, 5, 7}));
    EXPECT_EQ(moving_average({2, 4, 6, 8}, 16), (std::vector<double>{2, 3, 4, 5}));
}

TEST(TokenRate, HistogramBinsCoverTheRangeWithTheMaximumInTheLastBin) {
    const auto result = histogram({1, 2, 2, 3, 4, 5}, 4);  // width 1: [1,2) [2,3) [3,4) [4,5]
    EXPECT_DOUBLE_EQ(result.low, 1.0);
    EXPECT_DOUBLE_EQ(result.width, 1.0);
    EXPECT_EQ(result.counts, (std::vector<int>{1, 2, 1, 2}));
    const auto flat = histogram({3, 3, 3}, 5);
    EXPECT_EQ(flat.counts, (std::vector<int>{3, 0, 0, 0, 0}));
    EXPECT_EQ(histogram({}, 3).counts, (std::vector<int>{0, 0, 0}));
}

}  // namespace
}  // namespace hearth::core
