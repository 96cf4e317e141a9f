// Activations quantised on the fly so weights can be multiplied with integer dot products.
#pragma once

#include <cstddef>
#include <cstdint>

namespace hearth::kernels {

// For the 32-element weight formats (Q8_0, Q4_0, Q4_1, Q5_0, Q5_1).
struct BlockQ8 {
    float scale;
    float scaled_sum;  // scale * sum(quants): what the *_1 formats' offsets multiply
    int8_t quants[32];
};

// For the k-quant formats (Q4_K, Q5_K, Q6_K): one scale per 256, with sums per 16 for the minimums.
struct BlockQ8K {
    float scale;
    int8_t quants[256];
    int16_t sums[16];
};

// The same Q8 blocks in planes, for kernels that take eight blocks' scales at once: `count`
// quants, then count / 32 scales, then count / 32 scaled sums.
struct PlanarQ8 {
    const int8_t* quants;
    const float* scales;
    const float* scaled_sums;
};
inline size_t planar_q8_bytes(size_t count) {
    return count + 2 * (count / 32) * sizeof(float);
}
inline PlanarQ8 planar_q8(const void* data, size_t count) {
    const auto* quants = static_cast<const int8_t*>(data);
    const auto* scales = reinterpret_cast<const float*>(quants + count);
    return {quants, scales, scales + count / 32};
}

void quantize_row_q8(const float* x, BlockQ8* out, size_t count);      // count % 32 == 0
void quantize_row_planar_q8(const float* x, void* out, size_t count);  // count % 32 == 0
void quantize_row_q8k(const float* x, BlockQ8K* out, size_t count);    // count % 256 == 0

}  // namespace hearth::kernels
