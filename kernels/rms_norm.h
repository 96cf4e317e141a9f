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

// The scale rms_norm multiplies by, from the sum of squares; shared so every version rounds alike.
inline float rms_scale(double sum_squares, size_t count, float epsilon) {
    return static_cast<float>(1.0 / std::sqrt(sum_squares / static_cast<double>(count) + epsilon));
}

}  // namespace hearth::kernels
