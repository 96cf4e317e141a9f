// The attention blocks compiled for AVX2 + FMA + F16C (attention_simd.h).
#include "kernels/attention_simd.h"

#include "kernels/attention_variants.h"

namespace hearth::kernels::avx2 {

void attention_block(AttentionRow* rows, size_t row_count, const uint16_t* keys,
                     const uint16_t* values, size_t stride, size_t count, size_t head_dim,
                     AttentionScoring scoring, float* scratch) {
    attend_halves(rows, row_count, keys, values, stride, count, head_dim, scoring, scratch);
}

void attention_block_q8_0(AttentionRow* rows, size_t row_count, const BlockQ8_0* keys,
                          const BlockQ8_0* values, size_t stride, size_t count, size_t head_dim,
                          AttentionScoring scoring, float* scratch) {
    attend_q8_0(rows, row_count, keys, values, stride, count, head_dim, scoring, scratch);
}

}  // namespace hearth::kernels::avx2
