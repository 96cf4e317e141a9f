#include "kernels/attention.h"

#include <algorithm>
#include <cmath>

#include "kernels/attention_variants.h"
#include "kernels/half.h"

namespace hearth::kernels {

namespace scalar {

void attention_block(AttentionRow* rows, size_t row_count, const uint16_t* keys,
                     const uint16_t* values, size_t stride, size_t count, size_t head_dim,
                     AttentionScoring scoring, float* scratch) {
    float* key = scratch;                       // [count][head_dim]
    float* value = scratch + count * head_dim;  // [count][head_dim]
    for (size_t p = 0; p < count; ++p) {
        for (size_t d = 0; d < head_dim; ++d) {
            key[p * head_dim + d] = half_to_float(keys[p * stride + d]);
            value[p * head_dim + d] = half_to_float(values[p * stride + d]);
        }
    }
    float scores[64];
    for (size_t r = 0; r < row_count; ++r) {
        AttentionRow& row = rows[r];
        if (row.visible <= row.hidden) continue;
        float block_maximum = row.maximum;
        for (size_t p = row.hidden; p < row.visible; ++p) {
            float sum = 0.0f;
            for (size_t d = 0; d < head_dim; ++d) sum += row.query[d] * key[p * head_dim + d];
            scores[p] = softcap_score(sum * scoring.scale, scoring.softcap);
            block_maximum = std::max(block_maximum, scores[p]);
        }
        const float correction = std::exp(row.maximum - block_maximum);
        row.denominator *= correction;
        for (size_t d = 0; d < head_dim; ++d) row.out[d] *= correction;
        for (size_t p = row.hidden; p < row.visible; ++p) {
            const float weight = std::exp(scores[p] - block_maximum);
            row.denominator += weight;
            for (size_t d = 0; d < head_dim; ++d) row.out[d] += weight * value[p * head_dim + d];
        }
        row.maximum = block_maximum;
    }
}

}  // namespace scalar

AttentionBlockFunction attention_block(Isa isa) {
#if defined(HEARTH_HAVE_AVX2_KERNELS)
    if (isa != Isa::Scalar) return avx2::attention_block;
#endif
    (void)isa;
    return scalar::attention_block;
}

}  // namespace hearth::kernels
