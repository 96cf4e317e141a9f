// SwiGLU: the scalar twin against double-precision silu, and the machine's kernel against the
// twin, on awkward lengths (vector bodies with tails) and on gates where e^-x overflows or
// vanishes.
#include "kernels/swiglu.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace hearth::kernels
