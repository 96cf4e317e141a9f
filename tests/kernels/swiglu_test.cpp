// SwiGLU and GeGLU: the scalar twins against double-precision silu and tanh-gelu, and the
// machine's kernels against the same, on awkward lengths (vector bodies with tails) and on gates
// where e^-x overflows or vanishes.
#include "kernels/swiglu.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "tests/support/random_weights.h"

namespace hearth::kernels {
namespace {

struct Kernel {
    const char* name;
    SwigluFunction function;
};
const Kernel kKernels[] = {{"scalar", scalar::swiglu}, {"machine", swiglu()}};

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

const Kernel kGegluKernels[] = {{"scalar", scalar::geglu}, {"machine", geglu()}};

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

}  // namespace
}  // namespace hearth::kernels
