// AVX2 + FMA + F16C attention blocks over F16 and Q8_0 caches (compiled with those instructions
// alone; chosen at run time). Keys are stored transposed so a query's scores for 32 positions come
// out of four vector accumulators with no horizontal sums; values stay row-major so each weighted
// row adds into up to 64 output dimensions held in registers.
#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "kernels/attention_variants.h"
#include "kernels/half.h"
#include "kernels/simd_helpers.h"

namespace hearth::kernels::avx2 {
namespace {

constexpr size_t kScoreLanes = 32;  // positions scored per pass: four 8-lane accumulators
constexpr size_t kScoreRows = 3;    // query rows scored together

// A block's cached rows as floats, eight dimensions at a time: F16 halves, or Q8_0 blocks
// (head_dim a multiple of 32, so eight dimensions never straddle two blocks).
struct HalfRows {
    const uint16_t* data;
    size_t stride;  // elements between positions

    __m256 load8(size_t p, size_t d) const {
        return _mm256_cvtph_ps(
            _mm_loadu_si128(reinterpret_cast<const __m128i*>(data + p * stride + d)));
    }
    float at(size_t p, size_t d) const { return half_to_float(data[p * stride + d]); }
};

struct Q8_0Rows {
    const BlockQ8_0* data;
    size_t stride;  // blocks between positions

    __m256 load8(size_t p, size_t d) const {
        const BlockQ8_0& block = data[p * stride + d / kBlock32];
        const __m128i quants =
            _mm_loadl_epi64(reinterpret_cast<const __m128i*>(block.quants + d % kBlock32));
        return _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(quants)),
                             _mm256_set1_ps(_cvtsh_ss(block.scale)));
    }
    float at(size_t p, size_t d) const {
        const BlockQ8_0& block = data[p * stride + d / kBlock32];
        return static_cast<float>(block.quants[d % kBlock32]) * half_to_float(block.scale);
    }
};

// rows[i] (position i, eight dimensions) -> rows[j] (dimension j, eight positions).
void transpose8(__m256* rows) {
    __m256 pairs[8], quads[8];
    for (int i = 0; i < 8; i += 2) {
        pairs[i] = _mm256_unpacklo_ps(rows[i], rows[i + 1]);
        pairs[i + 1] = _mm256_unpackhi_ps(rows[i], rows[i + 1]);
    }
    for (int i = 0; i < 8; i += 4) {
        for (int j = 0; j < 2; ++j) {
            quads[i + j] = _mm256_shuffle_ps(pairs[i + j], pairs[i + j + 2], 0x44);
            quads[i + j + 2] = _mm256_shuffle_ps(pairs[i + j], pairs[i + j + 2], 0xee);
        }
    }
    // quads[0..3] hold dimensions 0,4 / 1,5 / 2,6 / 3,7 of positions 0-3 (low) and 4-7 (high).
    const int order[4] = {0, 2, 1, 3};
    for (int j = 0; j < 4; ++j) {
        rows[j] = _mm256_permute2f128_ps(quads[order[j]], quads[order[j] + 4], 0x20);
        rows[j + 4] = _mm256_permute2f128_ps(quads[order[j]], quads[order[j] + 4], 0x31);
    }
}

// Keys [count] rows -> [head_dim][padded] f32, positions past `count` zero; eight positions ×
// eight dimensions at a time through registers.
template <typename Rows>
void transpose_keys(const Rows& keys, size_t count, size_t padded, size_t head_dim, float* out) {
    const size_t whole = head_dim / 8 * 8;
    for (size_t p = 0; p < padded; p += 8) {
        for (size_t d = 0; d < whole; d += 8) {
            __m256 rows[8];
#pragma GCC unroll 8
            for (int i = 0; i < 8; ++i) {
                rows[i] = p + i < count ? keys.load8(p + i, d) : _mm256_setzero_ps();
            }
            transpose8(rows);
#pragma GCC unroll 8
            for (int j = 0; j < 8; ++j) _mm256_store_ps(out + (d + j) * padded + p, rows[j]);
        }
        for (size_t d = whole; d < head_dim; ++d) {
            for (size_t i = p; i < p + 8; ++i) {
                out[d * padded + i] = i < count ? keys.at(i, d) : 0.0f;
            }
        }
    }
}

template <typename Rows>
void convert_values(const Rows& values, size_t count, size_t head_dim, float* out) {
    for (size_t p = 0; p < count; ++p) {
        float* row = out + p * head_dim;
        size_t d = 0;
        for (; d + 8 <= head_dim; d += 8) _mm256_storeu_ps(row + d, values.load8(p, d));
        for (; d < head_dim; ++d) row[d] = values.at(p, d);
    }
}

// scores[i][p] = scale * query i · key p for every padded position, for R query rows at once:
// one row's four accumulator chains leave the FMA units waiting on latency, three rows' twelve
// keep them busy (15% off the block in isolation). Each row's arithmetic is the same whatever R
// is, so a row's result does not depend on which rows share its block.
template <int R>
void score(const float* const* queries, const float* keys, size_t padded, size_t head_dim,
           float scale, float (*scores)[64]) {
    for (size_t first = 0; first < padded; first += kScoreLanes) {
        __m256 acc[R][4];
#pragma GCC unroll 8
        for (int i = 0; i < R; ++i) {
#pragma GCC unroll 4
            for (int j = 0; j < 4; ++j) acc[i][j] = _mm256_setzero_ps();
        }
        const float* column = keys + first;
        for (size_t d = 0; d < head_dim; ++d, column += padded) {
            __m256 k[4];
#pragma GCC unroll 4
            for (int j = 0; j < 4; ++j) k[j] = _mm256_load_ps(column + 8 * j);
#pragma GCC unroll 8
            for (int i = 0; i < R; ++i) {
                const __m256 q = _mm256_broadcast_ss(queries[i] + d);
#pragma GCC unroll 4
                for (int j = 0; j < 4; ++j) acc[i][j] = _mm256_fmadd_ps(q, k[j], acc[i][j]);
            }
        }
#pragma GCC unroll 8
        for (int i = 0; i < R; ++i) {
#pragma GCC unroll 4
            for (int j = 0; j < 4; ++j) {
                _mm256_store_ps(scores[i] + first + 8 * j,
                                _mm256_mul_ps(acc[i][j], _mm256_set1_ps(scale)));
            }
        }
    }
}

// For R rows i: out_i[d .. d + 8N) = out_i * correction_i + sum over p < visible of
// weights_i[p] * values[p][d .. d + 8N). Each value vector is loaded once for all R rows; the
// empty asm stops GCC from folding the load into every row's FMA, which would make the loads
// the limit again. A row's weights past its own window are zero, so its sums are the same as
// alone.
template <int R, int N>
void add_weighted(float* const* out, const float* const* weights, const float* correction,
                  const float* values, size_t head_dim, size_t visible, size_t d) {
    __m256 acc[R][N];
#pragma GCC unroll 8
    for (int i = 0; i < R; ++i) {
#pragma GCC unroll 8
        for (int j = 0; j < N; ++j) {
            acc[i][j] =
                _mm256_mul_ps(_mm256_loadu_ps(out[i] + d + 8 * j), _mm256_set1_ps(correction[i]));
        }
    }
    for (size_t p = 0; p < visible; ++p) {
        __m256 w[R];
#pragma GCC unroll 8
        for (int i = 0; i < R; ++i) w[i] = _mm256_broadcast_ss(weights[i] + p);
        const float* row = values + p * head_dim + d;
#pragma GCC unroll 8
        for (int j = 0; j < N; ++j) {
            __m256 value = _mm256_loadu_ps(row + 8 * j);
            if constexpr (R > 1) asm("" : "+x"(value));
#pragma GCC unroll 8
            for (int i = 0; i < R; ++i) acc[i][j] = _mm256_fmadd_ps(w[i], value, acc[i][j]);
        }
    }
#pragma GCC unroll 8
    for (int i = 0; i < R; ++i) {
#pragma GCC unroll 8
        for (int j = 0; j < N; ++j) _mm256_storeu_ps(out[i] + d + 8 * j, acc[i][j]);
    }
}

// add_weighted over every dimension, as many vectors at a time as R rows' accumulators leave
// registers for (16 in AVX2).
template <int R>
void add_weighted_values(float* const* out, const float* const* weights, const float* correction,
                         const float* values, size_t head_dim, size_t visible) {
    constexpr int kVectors = R == 1 ? 8 : 4;
    using AddWeighted = void (*)(float* const*, const float* const*, const float*, const float*,
                                 size_t, size_t, size_t);
    constexpr AddWeighted kWidths[8] = {nullptr,
                                        add_weighted<R, 1>,
                                        add_weighted<R, 2>,
                                        add_weighted<R, 3>,
                                        add_weighted<R, 4>,
                                        add_weighted<R, 5>,
                                        add_weighted<R, 6>,
                                        add_weighted<R, 7>};
    size_t d = 0;
    for (; d + 8 * kVectors <= head_dim; d += 8 * kVectors) {
        add_weighted<R, kVectors>(out, weights, correction, values, head_dim, visible, d);
    }
    const size_t vectors = (head_dim - d) / 8;
    if (vectors > 0) kWidths[vectors](out, weights, correction, values, head_dim, visible, d);
    for (d += vectors * 8; d < head_dim; ++d) {
        for (int i = 0; i < R; ++i) {
            float sum = out[i][d] * correction[i];
            for (size_t p = 0; p < visible; ++p) sum += weights[i][p] * values[p * head_dim + d];
            out[i][d] = sum;
        }
    }
}

float sum_of(__m256 lanes) {
    alignas(32) float values[8];
    _mm256_store_ps(values, lanes);
    float sum = 0.0f;
    for (const float value : values) sum += value;
    return sum;
}

float maximum_of(__m256 lanes) {
    alignas(32) float values[8];
    _mm256_store_ps(values, lanes);
    return *std::max_element(values, values + 8);
}

// Folds one row's block scores (replaced by its weights, zero past its window) into its
// maximum and denominator; returns the factor its weighted sum so far must be scaled by.
float weigh(AttentionRow& row, float* scores, size_t padded) {
    const __m256i visible = _mm256_set1_epi32(static_cast<int>(row.visible));
    const __m256i hidden = _mm256_set1_epi32(static_cast<int>(row.hidden));
    // Lanes of positions from p on that the row sees: before its causal limit, from its window on.
    const auto seen = [&](size_t p) {
        const __m256i index = _mm256_add_epi32(_mm256_set1_epi32(static_cast<int>(p)),
                                               _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
        return _mm256_castsi256_ps(_mm256_andnot_si256(_mm256_cmpgt_epi32(hidden, index),
                                                       _mm256_cmpgt_epi32(visible, index)));
    };
    // A scalar maximum here was one long dependency chain: 11% of the block.
    __m256 largest = _mm256_set1_ps(row.maximum);
    const __m256 unseen = _mm256_set1_ps(-std::numeric_limits<float>::infinity());
    for (size_t p = 0; p < padded; p += 8) {
        largest =
            _mm256_max_ps(largest, _mm256_blendv_ps(unseen, _mm256_load_ps(scores + p), seen(p)));
    }
    const float block_maximum = maximum_of(largest);
    const float correction = std::exp(row.maximum - block_maximum);
    // Positions the row may not see weigh nothing.
    __m256 sum = _mm256_setzero_ps();
    for (size_t p = 0; p < padded; p += 8) {
        const __m256 weight = _mm256_and_ps(
            exp(_mm256_sub_ps(_mm256_load_ps(scores + p), _mm256_set1_ps(block_maximum))), seen(p));
        _mm256_store_ps(scores + p, weight);
        sum = _mm256_add_ps(sum, weight);
    }
    row.denominator = row.denominator * correction + sum_of(sum);
    row.maximum = block_maximum;
    return correction;
}

// The block of attention_block, over rows of either cache format.
template <typename Rows>
void attend(AttentionRow* rows, size_t row_count, const Rows& keys, const Rows& values,
            size_t count, size_t head_dim, AttentionScoring scoring, float* scratch) {
    const size_t padded = (count + kScoreLanes - 1) / kScoreLanes * kScoreLanes;
    float* key_columns = scratch;                     // [head_dim][padded]
    float* value_rows = scratch + head_dim * padded;  // [count][head_dim]
    transpose_keys(keys, count, padded, head_dim, key_columns);
    convert_values(values, count, head_dim, value_rows);
    alignas(32) float scores[kScoreRows][64];
    for (size_t r = 0; r < row_count; r += kScoreRows) {
        const size_t group = std::min(kScoreRows, row_count - r);
        const float* queries[kScoreRows];
        for (size_t i = 0; i < group; ++i) queries[i] = rows[r + i].query;
        if (group == kScoreRows) {
            score<kScoreRows>(queries, key_columns, padded, head_dim, scoring.scale, scores);
        } else {
            for (size_t i = 0; i < group; ++i) {
                score<1>(queries + i, key_columns, padded, head_dim, scoring.scale, scores + i);
            }
        }
        // Gemma 2's cap: rare enough among models to stay scalar.
        if (scoring.softcap > 0.0f) {
            for (size_t i = 0; i < group; ++i) {
                for (size_t p = 0; p < padded; ++p) {
                    scores[i][p] = softcap_score(scores[i][p], scoring.softcap);
                }
            }
        }
        // Rows that see this block: their weights, then their values added together.
        float* out[kScoreRows];
        const float* weights[kScoreRows];
        float correction[kScoreRows];
        size_t seeing = 0, visible = 0;
        for (size_t i = 0; i < group; ++i) {
            AttentionRow& row = rows[r + i];
            if (row.visible <= row.hidden) continue;
            correction[seeing] = weigh(row, scores[i], padded);
            out[seeing] = row.out;
            weights[seeing++] = scores[i];
            visible = std::max(visible, row.visible);
        }
        if (seeing == 3) {
            add_weighted_values<3>(out, weights, correction, value_rows, head_dim, visible);
        } else if (seeing == 2) {
            add_weighted_values<2>(out, weights, correction, value_rows, head_dim, visible);
        } else if (seeing == 1) {
            add_weighted_values<1>(out, weights, correction, value_rows, head_dim, visible);
        }
    }
}

}  // namespace

void attention_block(AttentionRow* rows, size_t row_count, const uint16_t* keys,
                     const uint16_t* values, size_t stride, size_t count, size_t head_dim,
                     AttentionScoring scoring, float* scratch) {
    attend(rows, row_count, HalfRows{keys, stride}, HalfRows{values, stride}, count, head_dim,
           scoring, scratch);
}

void attention_block_q8_0(AttentionRow* rows, size_t row_count, const BlockQ8_0* keys,
                          const BlockQ8_0* values, size_t stride, size_t count, size_t head_dim,
                          AttentionScoring scoring, float* scratch) {
    attend(rows, row_count, Q8_0Rows{keys, stride}, Q8_0Rows{values, stride}, count, head_dim,
           scoring, scratch);
}

}  // namespace hearth::kernels::avx2
