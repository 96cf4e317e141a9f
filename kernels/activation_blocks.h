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

void quantize_row_q8(const float* x, BlockQ8* out, size_t count);    // count % 32 == 0
void quantize_row_q8k(const float* x, BlockQ8K* out, size_t count);  // count % 256 == 0

}  // namespace hearth::kernels
