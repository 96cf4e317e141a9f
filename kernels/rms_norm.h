// RMSNorm of one row: out = x / sqrt(mean(x^2) + epsilon) * weight. The mean is taken in double
// precision over eight interleaved sums (element i into sum i % 8, the rest past the last whole
// eight into a ninth) added in a fixed tree, so every version gives the same bits: a float's square
// is exact in a double, which makes a fused multiply-add round as an addition does. The CPU
// backend's earlier norm, one chain of dependent additions, took 3.6% of SmolLM-135M's pp512.
#pragma once

#include <cmath>
#include <cstddef>

#include "kernels/dot.h"

namespace hearth::kernels {

// out may be x (the per-head query and key norms work in place).
using RmsNormFunction = void (*)(const float* x, const float* weight, size_t count, float epsilon,
                                 float* out);

RmsNormFunction rms_norm(Isa isa);

// The per-ISA versions behind rms_norm(); tests compare them.
namespace scalar {
void rms_norm(const float* x, const float* weight, size_t count, float epsilon, float* out);
}  // namespace scalar

namespace avx2 {
void rms_norm(const float* x, const float* weight, size_t count, float epsilon, float* out);
}  // namespace avx2

// The scale rms_norm multiplies by, from the eight sums and the rest: the one definition of the
// order they are added in, and of the rounding, that every version shares.
inline float rms_scale(const double (&sums)[8], double rest, size_t count, float epsilon) {
    const double sum_squares = (((sums[0] + sums[1]) + (sums[2] + sums[3])) +
                                ((sums[4] + sums[5]) + (sums[6] + sums[7]))) +
                               rest;
    return static_cast<float>(1.0 / std::sqrt(sum_squares / static_cast<double>(count) + epsilon));
}

}  // namespace hearth::kernels
