#include "kernels/attention.h"

#include <algorithm>
#include <cmath>

#include "kernels/attention_variants.h"
#include "kernels/dequantize.h"
#include "kernels/half.h"

namespace hearth::kernels {

namespace {

// Folds a block whose keys and values are already floats ([count][head_dim] each) into each
// row's state.
void fold_block(AttentionRow* rows, size_t row_count, const float* key, const float* value,
                size_t head_dim, AttentionScoring scoring) {
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

// `count` cached values as floats.
void to_floats(const uint16_t* halves, float* out, size_t count) {
    for (size_t i = 0; i < count; ++i) out[i] = half_to_float(halves[i]);
}
void to_floats(const BlockQ8_0* blocks, float* out, size_t count) {
    dequantize_q8_0(blocks, out, count);
}

// Converts the block's keys and values (positions `stride` elements apart) into the scratch,
// then folds them.
template <typename Element>
void convert_and_fold(AttentionRow* rows, size_t row_count, const Element* keys,
                      const Element* values, size_t stride, size_t count, size_t head_dim,
                      AttentionScoring scoring, float* scratch) {
    float* key = scratch;                       // [count][head_dim]
    float* value = scratch + count * head_dim;  // [count][head_dim]
    for (size_t p = 0; p < count; ++p) {
        to_floats(keys + p * stride, key + p * head_dim, head_dim);
        to_floats(values + p * stride, value + p * head_dim, head_dim);
    }
    fold_block(rows, row_count, key, value, head_dim, scoring);
}

}  // namespace

namespace scalar {

void attention_block(AttentionRow* rows, size_t row_count, const uint16_t* keys,
                     const uint16_t* values, size_t stride, size_t count, size_t head_dim,
                     AttentionScoring scoring, float* scratch) {
    convert_and_fold(rows, row_count, keys, values, stride, count, head_dim, scoring, scratch);
}

void attention_block_q8_0(AttentionRow* rows, size_t row_count, const BlockQ8_0* keys,
                          const BlockQ8_0* values, size_t stride, size_t count, size_t head_dim,
                          AttentionScoring scoring, float* scratch) {
    convert_and_fold(rows, row_count, keys, values, stride, count, head_dim, scoring, scratch);
}

}  // namespace scalar

AttentionBlockFunction attention_block(Isa isa) {
#if defined(HEARTH_HAVE_AVX2_KERNELS)
    if (isa == Isa::Avx512Vnni) return avx512::attention_block;
    if (isa == Isa::Avx2) return avx2::attention_block;
#endif
    (void)isa;
    return scalar::attention_block;
}

AttentionBlockQ8_0Function attention_block_q8_0(Isa isa) {
#if defined(HEARTH_HAVE_AVX2_KERNELS)
    if (isa == Isa::Avx512Vnni) return avx512::attention_block_q8_0;
    if (isa == Isa::Avx2) return avx2::attention_block_q8_0;
#endif
    (void)isa;
    return scalar::attention_block_q8_0;
}

}  // namespace hearth::kernels
