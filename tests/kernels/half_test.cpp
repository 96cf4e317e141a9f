#include "kernels/half.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <limits>
#include <vector>

namespace hearth::kernels {
namespace {

TEST(Half, EveryHalfValueSurvivesARoundTripThroughFloat) {
    for (uint32_t bits = 0; bits <= 0xffff; ++bits) {
        const float value = half_to_float(static_cast<uint16_t>(bits));
        const uint16_t back = float_to_half(value);
        if (std::isnan(value)) {
            EXPECT_TRUE(std::isnan(half_to_float(back))) << bits;
        } else {
            EXPECT_EQ(back, bits) << bits;
        }
    }
}

TEST(Half, KnownValues) {
    EXPECT_EQ(half_to_float(0x3c00), 1.0f);
    EXPECT_EQ(half_to_float(0xc000), -2.0f);
    EXPECT_EQ(half_to_float(0x7bff), 65504.0f);
    EXPECT_EQ(half_to_float(0x0001), std::ldexp(1.0f, -24));  // smallest subnormal
    EXPECT_EQ(half_to_float(0x7c00), std::numeric_limits<float>::infinity());
    EXPECT_EQ(std::bit_cast<uint32_t>(half_to_float(0x8000)), 0x80000000u);
}

TEST(Half, RoundsToNearestEven) {
    // 1 + 2^-11 lies halfway between 1 and the next half (1 + 2^-10): ties go to even (1).
    EXPECT_EQ(float_to_half(1.0f + std::ldexp(1.0f, -11)), 0x3c00);
    // 1 + 3 * 2^-11 lies halfway between 1 + 2^-10 (odd) and 1 + 2^-9: rounds up to even.
    EXPECT_EQ(float_to_half(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3c02);
    EXPECT_EQ(float_to_half(65520.0f), 0x7c00);  // overflows to infinity
    EXPECT_EQ(float_to_half(std::ldexp(1.0f, -26)), 0x0000);
    EXPECT_EQ(float_to_half(std::ldexp(3.0f, -26)), 0x0001);
}

TEST(Half, RowConversionIsTheScalarOneBitForBit) {
    // Float bit patterns across every exponent (subnormal results, ties, overflow, infinities,
    // NaNs), in a row whose length leaves a tail for the scalar loop.
    std::vector<float> in;
    for (uint64_t bits = 0; bits <= 0xffffffffu; bits += 65521) {
        in.push_back(std::bit_cast<float>(static_cast<uint32_t>(bits)));
    }
    for (const float special :
         {0.0f, -0.0f, 65504.0f, 65520.0f, std::ldexp(3.0f, -26), 1.0f + std::ldexp(1.0f, -11)}) {
        in.push_back(special);
    }
    std::vector<uint16_t> out(in.size());
    floats_to_halves(in.data(), out.data(), in.size());
    for (size_t i = 0; i < in.size(); ++i) {
        if (std::isnan(in[i])) {
            EXPECT_TRUE(std::isnan(half_to_float(out[i]))) << i;
        } else {
            ASSERT_EQ(out[i], float_to_half(in[i])) << in[i];
        }
    }
}

TEST(BFloat16, RoundTripsAndRounds) {
    for (uint32_t bits = 0; bits <= 0xffff; bits += 7) {
        const float value = bfloat16_to_float(static_cast<uint16_t>(bits));
        if (!std::isnan(value)) {
            EXPECT_EQ(float_to_bfloat16(value), bits);
        }
    }
    EXPECT_EQ(float_to_bfloat16(1.0f), 0x3f80);
    EXPECT_EQ(float_to_bfloat16(std::bit_cast<float>(0x3f808000u)), 0x3f80);  // tie to even
    EXPECT_EQ(float_to_bfloat16(std::bit_cast<float>(0x3f818000u)), 0x3f82);
    EXPECT_TRUE(std::isnan(bfloat16_to_float(float_to_bfloat16(std::nanf("")))));
}

}  // namespace
}  // namespace hearth::kernels
