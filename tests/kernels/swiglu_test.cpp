// SwiGLU, GeGLU and gpt-oss's clamped SwiGLU: the scalar twins against double-precision
// definitions, and the machine's kernels against the same, on awkward lengths (vector bodies with
// tails) and on gates where e^-x overflows or vanishes.
#include "kernels/swiglu.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <iterator>
#include <random>
#include <utility>
#include <vector>

#include "tests/support/random_weights.h"

namespace hearth::kernels {
namespace {

struct Kernel {
    const char* name;
    SwigluFunction function;
};
// "avx2" is the AVX2 kernel where the machine's best is AVX-512, else the machine's again.
const Isa kAvx2 = std::min(best_isa(), Isa::Avx2);
const Kernel kKernels[] = {
    {"scalar", scalar::swiglu}, {"avx2", swiglu(kAvx2)}, {"machine", swiglu()}};

double silu_times(double gate, double up) {
    return gate / (1.0 + std::exp(-gate)) * up;
}

void expect_matches_double(const std::vector<float>& gate, const std::vector<float>& up,
                           const std::vector<float>& out, const char* kernel) {
    for (size_t i = 0; i < gate.size(); ++i) {
        const double expected = silu_times(gate[i], up[i]);
        ASSERT_NEAR(out[i], expected, 2e-6 * std::abs(expected) + 1e-30)
            << kernel << " element " << i << " of " << gate.size() << ", gate " << gate[i];
    }
}

TEST(Swiglu, EveryKernelIsSiluTimesUpOnAwkwardLengths) {
    std::mt19937 random(7);
    for (const size_t count : {1, 7, 8, 9, 31, 64, 1000, 5632}) {
        const auto gate = random_floats(count, random, 4.0f);
        const auto up = random_floats(count, random);
        for (const auto& [name, kernel] : kKernels) {
            auto out = gate;
            kernel(out.data(), up.data(), count);
            expect_matches_double(gate, up, out, name);
        }
    }
}

TEST(Swiglu, ExtremeGatesStayFinite) {
    // e^-x overflows a float below -88.7 and vanishes above 103; silu is then 0 and x.
    const std::vector<float> gate = {-1000.0f, -100.0f, -88.0f, -20.0f,  -1e-30f, 0.0f,  1e-30f,
                                     20.0f,    88.0f,   100.0f, 1000.0f, 1e30f,   -1e30f};
    const std::vector<float> up(gate.size(), 1.5f);
    for (const auto& [name, kernel] : kKernels) {
        auto out = gate;
        kernel(out.data(), up.data(), out.size());
        for (size_t i = 0; i < gate.size(); ++i) {
            ASSERT_TRUE(std::isfinite(out[i])) << name << " gate " << gate[i];
            if (gate[i] >= 20.0f) {
                EXPECT_FLOAT_EQ(out[i], gate[i] * 1.5f) << name;
            }
            if (gate[i] <= -100.0f) {
                EXPECT_NEAR(out[i], 0.0f, 1e-30f) << name;
            }
        }
    }
}

const Kernel kGegluKernels[] = {
    {"scalar", scalar::geglu}, {"avx2", geglu(kAvx2)}, {"machine", geglu()}};

// Gemma's definition as written, in double precision.
double gelu_times(double gate, double up) {
    const double inner =
        std::sqrt(2.0 / 3.14159265358979323846) * (gate + 0.044715 * gate * gate * gate);
    return 0.5 * gate * (1.0 + std::tanh(inner)) * up;
}

TEST(Geglu, EveryKernelIsTanhGeluTimesUpOnAwkwardLengths) {
    std::mt19937 random(11);
    for (const size_t count : {1, 7, 8, 9, 31, 64, 1000, 6912}) {
        const auto gate = random_floats(count, random, 4.0f);
        const auto up = random_floats(count, random);
        for (const auto& [name, kernel] : kGegluKernels) {
            auto out = gate;
            kernel(out.data(), up.data(), count);
            for (size_t i = 0; i < count; ++i) {
                const double expected = gelu_times(gate[i], up[i]);
                // Relative to the larger of the result and the up value: near a gate of zero
                // the product is small while its rounding is not.
                ASSERT_NEAR(out[i], expected, 4e-6 * std::max(std::abs(expected), 1e-3))
                    << name << " element " << i << " of " << count << ", gate " << gate[i];
            }
        }
    }
}

TEST(Geglu, ExtremeGatesStayFinite) {
    const std::vector<float> gate = {-1e30f, -1000.0f, -20.0f, 0.0f, 20.0f, 1000.0f, 1e30f};
    const std::vector<float> up(gate.size(), 1.5f);
    for (const auto& [name, kernel] : kGegluKernels) {
        auto out = gate;
        kernel(out.data(), up.data(), out.size());
        for (size_t i = 0; i < gate.size(); ++i) {
            ASSERT_TRUE(std::isfinite(out[i])) << name << " gate " << gate[i];
            if (gate[i] >= 20.0f) {
                EXPECT_FLOAT_EQ(out[i], gate[i] * 1.5f) << name;
            }
            if (gate[i] <= -20.0f) {
                EXPECT_NEAR(out[i], 0.0f, 1e-30f) << name;
            }
        }
    }
}

const Kernel kClampedKernels[] = {{"scalar", scalar::clamped_swiglu},
                                  {"avx2", clamped_swiglu(kAvx2)},
                                  {"machine", clamped_swiglu()}};

// gpt-oss's definition as the README writes it, in double precision.
double clamped_swiglu_of(double gate, double up) {
    const double x = std::min(gate, 7.0);
    return x / (1.0 + std::exp(-1.702 * x)) * (std::clamp(up, -7.0, 7.0) + 1.0);
}

// Gates and up values up to ±12, so that about a third of each lie beyond the clamps.
TEST(ClampedSwiglu, EveryKernelIsGptOssGateOnAwkwardLengths) {
    std::mt19937 random(13);
    for (const size_t count : {1, 7, 8, 9, 31, 64, 1000, 2880}) {
        const auto gate = random_floats(count, random, 12.0f);
        const auto up = random_floats(count, random, 12.0f);
        for (const auto& [name, kernel] : kClampedKernels) {
            auto out = gate;
            kernel(out.data(), up.data(), count);
            for (size_t i = 0; i < count; ++i) {
                const double expected = clamped_swiglu_of(gate[i], up[i]);
                ASSERT_NEAR(out[i], expected, 4e-6 * std::max(std::abs(expected), 1e-3))
                    << name << " element " << i << " of " << count << ", gate " << gate[i]
                    << ", up " << up[i];
            }
        }
    }
}

// The clamps: a gate past 7 counts as 7 and an up value past ±7 as ±7, so the output is bounded
// however large the inputs; a NaN input stays NaN (a poisoned weight must show).
TEST(ClampedSwiglu, TheClampsBoundTheOutputAndNaNShows) {
    const std::vector<float> gate = {8.0f, 1e30f, 7.0f, 8.0f, 100.0f, -1000.0f, -1e30f, NAN, 1.0f};
    const std::vector<float> up = {1.0f, 1.0f, 1.0f, 50.0f, -50.0f, 3.0f, 3.0f, 1.0f, NAN};
    for (const auto& [name, kernel] : kClampedKernels) {
        auto out = gate;
        kernel(out.data(), up.data(), out.size());
        const double at_seven = clamped_swiglu_of(7.0, 1.0);
        EXPECT_NEAR(out[0], at_seven, 1e-5) << name;
        EXPECT_NEAR(out[1], at_seven, 1e-5) << name;
        EXPECT_NEAR(out[2], at_seven, 1e-5) << name;
        EXPECT_NEAR(out[3], clamped_swiglu_of(7.0, 7.0), 1e-5) << name;
        EXPECT_NEAR(out[4], clamped_swiglu_of(7.0, -7.0), 1e-5) << name;
        EXPECT_NEAR(out[5], 0.0f, 1e-6) << name;
        EXPECT_NEAR(out[6], 0.0f, 1e-6) << name;
        EXPECT_TRUE(std::isnan(out[7])) << name;
        EXPECT_TRUE(std::isnan(out[8])) << name;
    }
}

// The AVX-512 gates run the AVX2 ones' operations sixteen lanes wide: a row's numbers must not
// depend on which of the two a machine picks for it. Lengths give 16-wide bodies with 8-wide and
// scalar tails; the gates span the clamps, e^x's limits and NaN.
TEST(Gates, Avx512GivesTheAvx2Bits) {
    const SwigluFunction machine[] = {swiglu(), geglu(), clamped_swiglu()};
    const SwigluFunction widest[] = {avx512::swiglu, avx512::geglu, avx512::clamped_swiglu};
    if (best_isa() < Isa::Avx512Vnni) {
        // Nothing to compare here; what such a CPU must get is never the AVX-512 gates.
        for (size_t g = 0; g < std::size(widest); ++g) EXPECT_NE(machine[g], widest[g]) << g;
        return;
    }
    // The gates compared below are the ones this machine runs.
    for (size_t g = 0; g < std::size(widest); ++g) EXPECT_EQ(machine[g], widest[g]) << g;
    using GatePair = std::pair<SwigluFunction, SwigluFunction>;
    const GatePair pairs[] = {{avx2::swiglu, avx512::swiglu},
                              {avx2::geglu, avx512::geglu},
                              {avx2::clamped_swiglu, avx512::clamped_swiglu}};
    std::mt19937 random(17);
    for (const size_t count : {1, 8, 15, 16, 17, 25, 33, 1536, 5632}) {
        auto gate = random_floats(count, random, 12.0f);
        const auto up = random_floats(count, random, 12.0f);
        const float specials[] = {-1000.0f, -88.0f, 88.0f, 1e30f, NAN, 7.0f, -0.0f};
        for (size_t i = 0; i < std::min(count, std::size(specials)); ++i)
            gate[i * 3 % count] = specials[i];
        for (const auto& [wide, widest] : pairs) {
            auto expected = gate, got = gate;
            wide(expected.data(), up.data(), count);
            widest(got.data(), up.data(), count);
            ASSERT_EQ(std::memcmp(expected.data(), got.data(), count * sizeof(float)), 0)
                << count << " elements";
        }
    }
}

}  // namespace
}  // namespace hearth::kernels
