// AVX2 + FMA + F16C attention blocks over F16 and Q8_0 caches (compiled with those instructions
// alone; chosen at run time). Each score is one chain of FMAs along the head and a fixed lane sum;
// each weighted value row adds into up to 64 output dimensions held in registers.
#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "kernels/attention_variants.h"
#include "kernels/half.h"
#include "kernels/simd_helpers.h"

namespace hearth::kernels::avx2 {
namespace {

constexpr size_t kScoreRows = 3;  // query rows scored together
// Rows up to which a block is read as stored. In a microbenchmark, reading as stored ran 4 and 8
// rows (decode's GQA groups of Gemma 3 and TinyLlama) 1.6x and 1.25x faster than converting the
// block first, and was still 5% ahead at 32 rows; converting was 3% ahead at 64 (a prompt's
// usual item). Every row gets the same result either way.
constexpr size_t kDirectRows = 16;

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

// The blocks' scales come converted, once per attention block: converting the f16 scale inside
// every eight-dimension load took four more instructions, three on the shuffle port the quants'
// widening also needs, and made a Q8_0 cache slower than an F16 one after 2048 positions.
struct Q8_0Rows {
    const BlockQ8_0* data;
    size_t stride;        // blocks between positions
    const float* scales;  // scales[p * blocks + b]: position p's block b's scale, as a float
    size_t blocks;        // a position's blocks (head_dim / 32)

    __m256 load8(size_t p, size_t d) const {
        const BlockQ8_0& block = data[p * stride + d / kBlock32];
        const __m128i quants =
            _mm_loadl_epi64(reinterpret_cast<const __m128i*>(block.quants + d % kBlock32));
        return _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(quants)),
                             _mm256_broadcast_ss(scales + p * blocks + d / kBlock32));
    }
    float at(size_t p, size_t d) const {
        const BlockQ8_0& block = data[p * stride + d / kBlock32];
        return static_cast<float>(block.quants[d % kBlock32]) * scales[p * blocks + d / kBlock32];
    }
};

// The most scales one attention block holds: 64 positions of 4 blocks or 32 of 8.
constexpr size_t kMaxBlockScales = 256;
static_assert(attention_block_positions(128) * 128 / kBlock32 <= kMaxBlockScales &&
                  attention_block_positions(kMaxAttentionHeadDim) * kMaxAttentionHeadDim /
                          kBlock32 <=
                      kMaxBlockScales,
              "an attention block's scales fit");

// `count` positions' scales, `blocks` per position, as floats (exactly the f16 values).
void convert_scales(const BlockQ8_0* data, size_t stride, size_t count, size_t blocks,
                    float* scales) {
    for (size_t p = 0; p < count; ++p) {
        for (size_t b = 0; b < blocks; ++b)
            scales[p * blocks + b] = _cvtsh_ss(data[p * stride + b].scale);
    }
}

// A block converted to floats once, for blocks that many rows read: converting is exact, so a
// row's arithmetic over these is the same as over the cache's own halves or blocks.
struct FloatRows {
    const float* data;
    size_t stride;  // floats between positions

    __m256 load8(size_t p, size_t d) const { return _mm256_loadu_ps(data + p * stride + d); }
    float at(size_t p, size_t d) const { return data[p * stride + d]; }
};

template <typename Rows>
void convert_rows(const Rows& rows, size_t count, size_t head_dim, float* out) {
    for (size_t p = 0; p < count; ++p) {
        float* row = out + p * head_dim;
        size_t d = 0;
        for (; d + 8 <= head_dim; d += 8) _mm256_storeu_ps(row + d, rows.load8(p, d));
        for (; d < head_dim; ++d) row[d] = rows.at(p, d);
    }
}

// The lane sums of four accumulators, each added in the same order, ((0+1)+(2+3))+((4+5)+(6+7)),
// so a score does not depend on which positions share its group.
__m128 lane_sums(__m256 a0, __m256 a1, __m256 a2, __m256 a3) {
    const __m256 sums = _mm256_hadd_ps(_mm256_hadd_ps(a0, a1), _mm256_hadd_ps(a2, a3));
    return _mm_add_ps(_mm256_castps256_ps128(sums), _mm256_extractf128_ps(sums, 1));
}

// scores[i][p] = scale * query i · key p for R query rows, four positions at a time: each
// (row, position) is one chain of FMAs over the head's dimensions in order, then its lanes'
// sum, then the dimensions past the last eight in order. Keys are read straight from the block
// (a decode step's two to eight rows would spend more converting it than scoring), and every
// score's arithmetic is the same whatever R is and whichever rows share the block. Scores past
// `count`, up to the next multiple of eight, are zero.
template <int R, typename Rows>
void score(const float* const* queries, const Rows& keys, size_t count, size_t head_dim,
           float scale, float (*scores)[64]) {
    constexpr size_t kGroup = 4;
    const size_t whole = head_dim / 8 * 8;
    for (size_t first = 0; first < count; first += kGroup) {
        // A group's positions past `count` repeat its last; their scores are overwritten.
        size_t position[kGroup];
        for (size_t j = 0; j < kGroup; ++j) position[j] = std::min(first + j, count - 1);
        __m256 acc[R][kGroup];
#pragma GCC unroll 8
        for (int i = 0; i < R; ++i) {
#pragma GCC unroll 4
            for (size_t j = 0; j < kGroup; ++j) acc[i][j] = _mm256_setzero_ps();
        }
        for (size_t d = 0; d < whole; d += 8) {
            __m256 query[R];
#pragma GCC unroll 8
            for (int i = 0; i < R; ++i) query[i] = _mm256_loadu_ps(queries[i] + d);
#pragma GCC unroll 4
            for (size_t j = 0; j < kGroup; ++j) {
                const __m256 key = keys.load8(position[j], d);
#pragma GCC unroll 8
                for (int i = 0; i < R; ++i) acc[i][j] = _mm256_fmadd_ps(query[i], key, acc[i][j]);
            }
        }
#pragma GCC unroll 8
        for (int i = 0; i < R; ++i) {
            const __m128 sums = lane_sums(acc[i][0], acc[i][1], acc[i][2], acc[i][3]);
            if (whole == head_dim) {
                _mm_store_ps(scores[i] + first, _mm_mul_ps(sums, _mm_set1_ps(scale)));
                continue;
            }
            alignas(16) float lanes[kGroup];
            _mm_store_ps(lanes, sums);
            for (size_t j = 0; j < kGroup; ++j) {
                float sum = lanes[j];
                for (size_t d = whole; d < head_dim; ++d) {
                    sum += queries[i][d] * keys.at(position[j], d);
                }
                scores[i][first + j] = sum * scale;
            }
        }
    }
    const size_t padded = (count + 7) / 8 * 8;
    for (int i = 0; i < R; ++i) std::fill(scores[i] + count, scores[i] + padded, 0.0f);
}

// For R rows i: out_i[d .. d + 8N) = out_i * correction_i + sum over p < visible of
// weights_i[p] * values[p][d .. d + 8N). Each value vector is loaded once for all R rows; the
// empty asm stops GCC from folding the load into every row's FMA, which would make the loads
// the limit again. A row's weights past its own window are zero, so its sums are the same as
// alone.
template <int R, int N, typename Rows>
void add_weighted(float* const* out, const float* const* weights, const float* correction,
                  const Rows& values, size_t visible, size_t d) {
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
#pragma GCC unroll 8
        for (int j = 0; j < N; ++j) {
            __m256 value = values.load8(p, d + 8 * j);
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
template <int R, typename Rows>
void add_weighted_values(float* const* out, const float* const* weights, const float* correction,
                         const Rows& values, size_t head_dim, size_t visible) {
    constexpr int kVectors = R == 1 ? 8 : 4;
    using AddWeighted =
        void (*)(float* const*, const float* const*, const float*, const Rows&, size_t, size_t);
    constexpr AddWeighted kWidths[8] = {nullptr,
                                        add_weighted<R, 1, Rows>,
                                        add_weighted<R, 2, Rows>,
                                        add_weighted<R, 3, Rows>,
                                        add_weighted<R, 4, Rows>,
                                        add_weighted<R, 5, Rows>,
                                        add_weighted<R, 6, Rows>,
                                        add_weighted<R, 7, Rows>};
    size_t d = 0;
    for (; d + 8 * kVectors <= head_dim; d += 8 * kVectors) {
        add_weighted<R, kVectors>(out, weights, correction, values, visible, d);
    }
    const size_t vectors = (head_dim - d) / 8;
    if (vectors > 0) kWidths[vectors](out, weights, correction, values, visible, d);
    for (d += vectors * 8; d < head_dim; ++d) {
        for (int i = 0; i < R; ++i) {
            float sum = out[i][d] * correction[i];
            for (size_t p = 0; p < visible; ++p) sum += weights[i][p] * values.at(p, d);
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

// Folds the block into every row's state, three rows at a time, reading keys and values as
// `Rows` give them.
template <typename Rows>
void fold_rows(AttentionRow* rows, size_t row_count, const Rows& keys, const Rows& values,
               size_t count, size_t head_dim, AttentionScoring scoring) {
    const size_t padded = (count + 7) / 8 * 8;
    alignas(32) float scores[kScoreRows][64];
    for (size_t r = 0; r < row_count; r += kScoreRows) {
        const size_t group = std::min(kScoreRows, row_count - r);
        const float* queries[kScoreRows];
        for (size_t i = 0; i < group; ++i) queries[i] = rows[r + i].query;
        if (group == 3) {
            score<3>(queries, keys, count, head_dim, scoring.scale, scores);
        } else if (group == 2) {
            score<2>(queries, keys, count, head_dim, scoring.scale, scores);
        } else {
            score<1>(queries, keys, count, head_dim, scoring.scale, scores);
        }
        // Gemma 2's cap: rare enough among models to stay scalar.
        if (scoring.softcap > 0.0f) {
            for (size_t i = 0; i < group; ++i) {
                for (size_t p = 0; p < count; ++p) {
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
            add_weighted_values<3>(out, weights, correction, values, head_dim, visible);
        } else if (seeing == 2) {
            add_weighted_values<2>(out, weights, correction, values, head_dim, visible);
        } else if (seeing == 1) {
            add_weighted_values<1>(out, weights, correction, values, head_dim, visible);
        }
    }
}

// The block of attention_block, over rows of either cache format. A block that many rows read
// (a prompt's tokens) is converted to floats once; a decode step's few rows read it as stored.
// Both give each row the same result.
template <typename Rows>
void attend(AttentionRow* rows, size_t row_count, const Rows& keys, const Rows& values,
            size_t count, size_t head_dim, AttentionScoring scoring, float* scratch) {
    if (row_count <= kDirectRows) {
        fold_rows(rows, row_count, keys, values, count, head_dim, scoring);
        return;
    }
    float* key_rows = scratch;                       // [count][head_dim]
    float* value_rows = scratch + count * head_dim;  // [count][head_dim]
    convert_rows(keys, count, head_dim, key_rows);
    convert_rows(values, count, head_dim, value_rows);
    fold_rows(rows, row_count, FloatRows{key_rows, head_dim}, FloatRows{value_rows, head_dim},
              count, head_dim, scoring);
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
    const size_t blocks = head_dim / kBlock32;
    alignas(32) float key_scales[kMaxBlockScales], value_scales[kMaxBlockScales];
    convert_scales(keys, stride, count, blocks, key_scales);
    convert_scales(values, stride, count, blocks, value_scales);
    attend(rows, row_count, Q8_0Rows{keys, stride, key_scales, blocks},
           Q8_0Rows{values, stride, value_scales, blocks}, count, head_dim, scoring, scratch);
}

}  // namespace hearth::kernels::avx2
