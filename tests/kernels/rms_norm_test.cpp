// RMSNorm: the scalar version against the double-precision definition, and the AVX2 version
// against the scalar one bit for bit (a row's numbers must not depend on the machine's ISA level),
// on lengths with and without a tail, in place as the per-head norms run it.
#include "kernels/rms_norm.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "tests/support/random_weights.h"

namespace hearth::kernels {
namespace {

constexpr float kEpsilon = 1e-6f;
const size_t kCounts[] = {1, 7, 8, 9, 64, 100, 576, 2048, 2051};

TEST(RmsNorm, ScalarIsTheDefinition) {
    std::mt19937 random(3);
    for (const size_t count : kCounts) {
        const auto x = random_floats(count, random, 5.0f);
        const auto weight = random_floats(count, random);
        std::vector<float> out(count);
        scalar::rms_norm(x.data(), weight.data(), count, kEpsilon, out.data());
        double squares = 0.0;
        for (const float v : x) squares += static_cast<double>(v) * v;
        const double scale = 1.0 / std::sqrt(squares / static_cast<double>(count) + kEpsilon);
        for (size_t i = 0; i < count; ++i) {
            const double expected = x[i] * scale * weight[i];
            ASSERT_NEAR(out[i], expected, 1e-6 * std::abs(expected) + 1e-30)
                << "element " << i << " of " << count;
        }
    }
}

TEST(RmsNorm, MachineGivesTheScalarBitsAlsoInPlace) {
    const RmsNormFunction machine = rms_norm(best_isa());
    std::mt19937 random(5);
    for (const size_t count : kCounts) {
        auto x = random_floats(count, random, 5.0f);
        // Magnitudes twelve orders apart, so a lost or doubled element shows in every output.
        for (size_t i = 0; i < count; i += 5) x[i] *= 1e6f;
        const auto weight = random_floats(count, random);
        std::vector<float> expected(count), got(count);
        scalar::rms_norm(x.data(), weight.data(), count, kEpsilon, expected.data());
        machine(x.data(), weight.data(), count, kEpsilon, got.data());
        ASSERT_EQ(std::memcmp(expected.data(), got.data(), count * sizeof(float)), 0)
            << count << " elements";
        machine(x.data(), weight.data(), count, kEpsilon, x.data());
        ASSERT_EQ(std::memcmp(expected.data(), x.data(), count * sizeof(float)), 0)
            << count << " elements, in place";
    }
}

// Squares past float's range stay finite in the double sum; a zero row stays zero.
TEST(RmsNorm, HugeAndZeroRows) {
    const RmsNormFunction machine = rms_norm(best_isa());
    const std::vector<float> huge(16, 3e30f), zero(16, 0.0f), weight(16, 2.0f);
    std::vector<float> out(16);
    machine(huge.data(), weight.data(), 16, kEpsilon, out.data());
    for (const float v : out) EXPECT_NEAR(v, 2.0f, 1e-6f);
    machine(zero.data(), weight.data(), 16, kEpsilon, out.data());
    for (const float v : out) EXPECT_EQ(v, 0.0f);
}

}  // namespace
}  // namespace hearth::kernels
