// The attention block's SIMD body over F16 and Q8_0 caches, included by one file per instruction
// set (attention_avx2.cpp, attention_avx512.cpp), each compiled with those instructions alone and
// chosen at run time. Each score is one chain of FMAs along the head in eight lanes and a fixed
// lane sum; each weighted value row adds into up to 64 output dimensions held in registers.
// Compiled for AVX-512, a decode step's few rows score two positions' eight lanes in one register,
// a prompt's many rows score sixteen positions a vector from transposed keys, and the values are
// added sixteen dimensions at a time: every lane does the same arithmetic in the same order, so
// both files give the same bits and rows may be split between them freely.
#pragma once

#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "kernels/attention.h"
#include "kernels/attention_rows.h"
#include "kernels/simd_helpers.h"
#if defined(__AVX512F__)
#include "kernels/avx512_helpers.h"
#endif

namespace hearth::kernels {
namespace {

constexpr size_t kScoreRows = 3;  // query rows scored together
// Rows up to which a block is read as stored. In a microbenchmark, reading as stored ran 4 and 8
// rows (decode's GQA groups of Gemma 3 and TinyLlama) 1.6x and 1.25x faster than converting the
// block first, and was still 5% ahead at 32 rows; converting was 3% ahead at 64 (a prompt's
// usual item). Every row gets the same result either way.
constexpr size_t kDirectRows = 16;

// The lane sums of four accumulators, each added in the same order, ((0+1)+(2+3))+((4+5)+(6+7)),
// so a score does not depend on which positions share its group.
__m128 lane_sums(__m256 a0, __m256 a1, __m256 a2, __m256 a3) {
    const __m256 sums = _mm256_hadd_ps(_mm256_hadd_ps(a0, a1), _mm256_hadd_ps(a2, a3));
    return _mm_add_ps(_mm256_castps256_ps128(sums), _mm256_extractf128_ps(sums, 1));
}

#if defined(__AVX512F__)
// A prompt's many rows score sixteen positions a vector with no lane sums to shuffle: vector l
// of a row adds dimensions l, l + 8, l + 16 ... in order, as lane l does in the eight-lane scores
// below, and the eight vectors are added in the lane sums' tree, so each score has the same bits
// as read from rows.
template <int R>
void score(const float* const* queries, const TransposedKeys& keys, size_t count, size_t head_dim,
           float scale, float (*scores)[64]) {
    for (size_t first = 0; first < count; first += 16) {
        __m512 lane[R][8];
#pragma GCC unroll 8
        for (int i = 0; i < R; ++i) {
#pragma GCC unroll 8
            for (int l = 0; l < 8; ++l) lane[i][l] = _mm512_setzero_ps();
        }
        for (size_t d = 0; d < head_dim; d += 8) {
#pragma GCC unroll 8
            for (int l = 0; l < 8; ++l) {
                // In a register of its own: GCC would read it once per row instead, and the
                // queries' broadcasts then compete with it for the load ports.
                __m512 key = _mm512_loadu_ps(keys.data + (d + l) * keys.positions + first);
                asm("" : "+v"(key));
#pragma GCC unroll 8
                for (int i = 0; i < R; ++i) {
                    lane[i][l] =
                        _mm512_fmadd_ps(_mm512_set1_ps(queries[i][d + l]), key, lane[i][l]);
                }
            }
        }
#pragma GCC unroll 8
        for (int i = 0; i < R; ++i) {
            const __m512 sum = _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(lane[i][0], lane[i][1]),
                                                           _mm512_add_ps(lane[i][2], lane[i][3])),
                                             _mm512_add_ps(_mm512_add_ps(lane[i][4], lane[i][5]),
                                                           _mm512_add_ps(lane[i][6], lane[i][7])));
            _mm512_store_ps(scores[i] + first, _mm512_mul_ps(sum, _mm512_set1_ps(scale)));
        }
    }
    const size_t padded = (count + 7) / 8 * 8;
    for (int i = 0; i < R; ++i) std::fill(scores[i] + count, scores[i] + padded, 0.0f);
}
#endif

// What scoring and add_weighted read, beside the float operations: eight lanes at a time or,
// compiled for AVX-512, sixteen; each lane does the same arithmetic in the same order either way.
struct EightLanes : EightFloats {
    static constexpr size_t kPositions = 1;  // whose scores one vector sums
    static Vector query(const float* from) { return _mm256_loadu_ps(from); }
    template <typename Rows>
    static Vector keys(const Rows& rows, const size_t* position, size_t d) {
        return rows.load8(position[0], d);
    }
    static __m128 four_sums(const Vector* a) { return lane_sums(a[0], a[1], a[2], a[3]); }
    template <typename Rows>
    static Vector values(const Rows& rows, size_t p, size_t d) {
        return rows.load8(p, d);
    }
};

#if defined(__AVX512F__)
// Scoring, it holds two positions' eight lanes in one register, one in each half.
struct SixteenLanes : SixteenFloats {
    static constexpr size_t kPositions = 2;
    static Vector query(const float* from) {
        return _mm512_castpd_ps(_mm512_broadcast_f64x4(_mm256_castps_pd(_mm256_loadu_ps(from))));
    }
    template <typename Rows>
    static Vector keys(const Rows& rows, const size_t* position, size_t d) {
        return rows.load_pair(position[0], position[1], d);
    }
    static __m128 four_sums(const Vector* a) {
        return lane_sums(low_half(a[0]), high_half(a[0]), low_half(a[1]), high_half(a[1]));
    }
    template <typename Rows>
    static Vector values(const Rows& rows, size_t p, size_t d) {
        return rows.load16(p, d);
    }
};
#endif

// Four positions' scores from their lane sums: times the scale, after the dimensions past the
// last eight, in order, where the head has any.
template <typename Rows>
void store_scores(__m128 sums, const float* query, const Rows& keys, const size_t* position,
                  size_t whole, size_t head_dim, float scale, float* scores) {
    if (whole == head_dim) {
        _mm_store_ps(scores, _mm_mul_ps(sums, _mm_set1_ps(scale)));
        return;
    }
    alignas(16) float lanes[4];
    _mm_store_ps(lanes, sums);
    for (size_t j = 0; j < 4; ++j) {
        float sum = lanes[j];
        for (size_t d = whole; d < head_dim; ++d) sum += query[d] * keys.at(position[j], d);
        scores[j] = sum * scale;
    }
}

// scores[i][p] = scale * query i · key p for R query rows, a group of positions at a time: each
// (row, position) is one chain of FMAs over the head's dimensions in eight lanes in order, then
// its lanes' sum, then the dimensions past the last eight in order. Keys are read straight from
// the block (a decode step's two to eight rows would spend more converting it than scoring), and
// every score's arithmetic is the same whatever R is and whichever rows share the block. Scores
// past `count`, up to the next multiple of eight, are zero.
template <int R, typename Lanes, typename Rows>
void score_group(const float* const* queries, const Rows& keys, size_t count, size_t head_dim,
                 float scale, float (*scores)[64]) {
    constexpr size_t kVectors = 4, kGroup = kVectors * Lanes::kPositions;
    const size_t whole = head_dim / 8 * 8;
    for (size_t first = 0; first < count; first += kGroup) {
        // A group's positions past `count` repeat its last; their scores are overwritten.
        size_t position[kGroup];
        for (size_t j = 0; j < kGroup; ++j) position[j] = std::min(first + j, count - 1);
        typename Lanes::Vector acc[R][kVectors];
#pragma GCC unroll 8
        for (int i = 0; i < R; ++i) {
#pragma GCC unroll 4
            for (size_t j = 0; j < kVectors; ++j) acc[i][j] = Lanes::splat(0.0f);
        }
        for (size_t d = 0; d < whole; d += 8) {
            typename Lanes::Vector query[R];
#pragma GCC unroll 8
            for (int i = 0; i < R; ++i) query[i] = Lanes::query(queries[i] + d);
#pragma GCC unroll 4
            for (size_t j = 0; j < kVectors; ++j) {
                auto key = Lanes::keys(keys, position + j * Lanes::kPositions, d);
                if constexpr (R > 1) Lanes::own_register(key);
#pragma GCC unroll 8
                for (int i = 0; i < R; ++i) {
                    acc[i][j] = Lanes::multiply_add(query[i], key, acc[i][j]);
                }
            }
        }
#pragma GCC unroll 8
        for (int i = 0; i < R; ++i) {
#pragma GCC unroll 2
            for (size_t j = 0; j < kGroup; j += 4) {
                store_scores(Lanes::four_sums(acc[i] + j / Lanes::kPositions), queries[i], keys,
                             position + j, whole, head_dim, scale, scores[i] + first + j);
            }
        }
    }
    const size_t padded = (count + 7) / 8 * 8;
    for (int i = 0; i < R; ++i) std::fill(scores[i] + count, scores[i] + padded, 0.0f);
}

template <int R, typename Rows>
void score(const float* const* queries, const Rows& keys, size_t count, size_t head_dim,
           float scale, float (*scores)[64]) {
#if defined(__AVX512F__)
    score_group<R, SixteenLanes>(queries, keys, count, head_dim, scale, scores);
#else
    score_group<R, EightLanes>(queries, keys, count, head_dim, scale, scores);
#endif
}

// For R rows i: out_i[d .. d + N vectors) = out_i * correction_i + sum over p < visible of
// weights_i[p] * values[p][d .. d + N vectors). Each value vector is loaded once for all R rows;
// without a register of its own GCC folds the load into every row's FMA, which would make the
// loads the limit again. A row's weights past its own window are zero, so its sums are the same
// as alone.
template <int R, int N, typename Lanes, typename Rows>
void add_weighted(float* const* out, const float* const* weights, const float* correction,
                  const Rows& values, size_t visible, size_t d) {
    constexpr size_t kLanes = Lanes::kLanes;
    typename Lanes::Vector acc[R][N];
#pragma GCC unroll 8
    for (int i = 0; i < R; ++i) {
#pragma GCC unroll 8
        for (int j = 0; j < N; ++j) {
            acc[i][j] =
                Lanes::multiply(Lanes::load(out[i] + d + kLanes * j), Lanes::splat(correction[i]));
        }
    }
    for (size_t p = 0; p < visible; ++p) {
        typename Lanes::Vector w[R];
#pragma GCC unroll 8
        for (int i = 0; i < R; ++i) w[i] = Lanes::splat(weights[i][p]);
#pragma GCC unroll 8
        for (int j = 0; j < N; ++j) {
            auto value = Lanes::values(values, p, d + kLanes * j);
            if constexpr (R > 1) Lanes::own_register(value);
#pragma GCC unroll 8
            for (int i = 0; i < R; ++i) acc[i][j] = Lanes::multiply_add(w[i], value, acc[i][j]);
        }
    }
#pragma GCC unroll 8
    for (int i = 0; i < R; ++i) {
#pragma GCC unroll 8
        for (int j = 0; j < N; ++j) Lanes::store(out[i] + d + kLanes * j, acc[i][j]);
    }
}

// The dimensions from d on, past the last whole vector, one at a time.
template <int R, typename Rows>
void add_remaining(float* const* out, const float* const* weights, const float* correction,
                   const Rows& values, size_t head_dim, size_t visible, size_t d) {
    for (; d < head_dim; ++d) {
        for (int i = 0; i < R; ++i) {
            float sum = out[i][d] * correction[i];
            for (size_t p = 0; p < visible; ++p) sum += weights[i][p] * values.at(p, d);
            out[i][d] = sum;
        }
    }
}

// add_weighted over the whole vectors of dimensions from d on, kVectors at a time, then the
// rest together; returns where they end.
template <int R, int kVectors, typename Lanes, typename Rows>
size_t add_weighted_vectors(float* const* out, const float* const* weights, const float* correction,
                            const Rows& values, size_t head_dim, size_t visible, size_t d) {
    static_assert(kVectors <= 8);
    using AddWeighted =
        void (*)(float* const*, const float* const*, const float*, const Rows&, size_t, size_t);
    constexpr AddWeighted kWidths[8] = {nullptr,
                                        add_weighted<R, 1, Lanes, Rows>,
                                        add_weighted<R, 2, Lanes, Rows>,
                                        add_weighted<R, 3, Lanes, Rows>,
                                        add_weighted<R, 4, Lanes, Rows>,
                                        add_weighted<R, 5, Lanes, Rows>,
                                        add_weighted<R, 6, Lanes, Rows>,
                                        add_weighted<R, 7, Lanes, Rows>};
    constexpr size_t kStep = Lanes::kLanes * kVectors;
    for (; d + kStep <= head_dim; d += kStep) {
        add_weighted<R, kVectors, Lanes>(out, weights, correction, values, visible, d);
    }
    const size_t vectors = (head_dim - d) / Lanes::kLanes;
    if (vectors > 0) kWidths[vectors](out, weights, correction, values, visible, d);
    return d + vectors * Lanes::kLanes;
}

// add_weighted over every dimension: as many vectors at a time as R rows' accumulators leave
// registers for (16 in AVX2; in AVX-512, R = 3 rows' 24 of the 32), then one at a time.
template <int R, typename Rows>
void add_weighted_values(float* const* out, const float* const* weights, const float* correction,
                         const Rows& values, size_t head_dim, size_t visible) {
    size_t d = 0;
#if defined(__AVX512F__)
    d = add_weighted_vectors<R, 8, SixteenLanes>(out, weights, correction, values, head_dim,
                                                 visible, d);
#endif
    constexpr int kEightLaneVectors = R == 1 ? 8 : 4;
    d = add_weighted_vectors<R, kEightLaneVectors, EightLanes>(out, weights, correction, values,
                                                               head_dim, visible, d);
    add_remaining<R>(out, weights, correction, values, head_dim, visible, d);
}

float sum_of(__m256 lanes) {
    alignas(32) float values[8];
    _mm256_store_ps(values, lanes);
    float sum = 0.0f;
    for (const float value : values) sum += value;
    return sum;
}

#if defined(__AVX512F__)
// weigh sixteen positions a vector (the last eight alone where `padded` is not a multiple of
// sixteen); the weights are still summed eight lanes at a time in the same order.
float weigh(AttentionRow& row, float* scores, size_t padded) {
    const __m512i visible = _mm512_set1_epi32(static_cast<int>(row.visible));
    const __m512i hidden = _mm512_set1_epi32(static_cast<int>(row.hidden));
    const __m512i lane = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    const auto present = [&](size_t p) -> __mmask16 { return p + 16 <= padded ? 0xffff : 0x00ff; };
    // Lanes of positions from p on that the row sees: before its causal limit, from its window on.
    const auto seen = [&](size_t p) -> __mmask16 {
        const __m512i index = _mm512_add_epi32(_mm512_set1_epi32(static_cast<int>(p)), lane);
        return _mm512_cmpgt_epi32_mask(visible, index) &
               static_cast<__mmask16>(~_mm512_cmpgt_epi32_mask(hidden, index)) & present(p);
    };
    __m512 largest = _mm512_set1_ps(row.maximum);
    for (size_t p = 0; p < padded; p += 16) {
        largest = _mm512_mask_max_ps(largest, seen(p), largest,
                                     _mm512_maskz_load_ps(present(p), scores + p));
    }
    const float block_maximum = _mm512_reduce_max_ps(largest);
    const float correction = std::exp(row.maximum - block_maximum);
    // Positions the row may not see weigh nothing.
    __m256 sum = _mm256_setzero_ps();
    for (size_t p = 0; p < padded; p += 16) {
        const __m512 weight = _mm512_maskz_mov_ps(
            seen(p), exp(_mm512_sub_ps(_mm512_maskz_load_ps(present(p), scores + p),
                                       _mm512_set1_ps(block_maximum))));
        _mm512_mask_store_ps(scores + p, present(p), weight);
        sum = _mm256_add_ps(sum, low_half(weight));
        if (p + 16 <= padded) sum = _mm256_add_ps(sum, high_half(weight));
    }
    row.denominator = row.denominator * correction + sum_of(sum);
    row.maximum = block_maximum;
    return correction;
}
#else
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
#endif

// Folds the block into every row's state, three rows at a time, reading keys and values as
// `Keys` and `Values` give them.
template <typename Keys, typename Values>
void fold_rows(AttentionRow* rows, size_t row_count, const Keys& keys, const Values& values,
               size_t count, size_t head_dim, AttentionScoring scoring) {
    const size_t padded = (count + 7) / 8 * 8;
    alignas(64) float scores[kScoreRows][64];
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
    // Keys and values, each in at most positions × head_dim floats (positions a multiple of 16).
    const size_t positions = attention_block_positions(head_dim);
    float* key_rows = scratch;                           // [count][head_dim], or transposed
    float* value_rows = scratch + positions * head_dim;  // [count][head_dim]
    convert_rows(values, count, head_dim, value_rows);
#if defined(__AVX512F__)
    if (head_dim % 8 == 0) {
        const size_t padded = (count + 15) / 16 * 16;
        convert_rows_transposed(keys, count, padded, head_dim, key_rows);
        fold_rows(rows, row_count, TransposedKeys{key_rows, padded},
                  FloatRows{value_rows, head_dim}, count, head_dim, scoring);
        return;
    }
#endif
    convert_rows(keys, count, head_dim, key_rows);
    fold_rows(rows, row_count, FloatRows{key_rows, head_dim}, FloatRows{value_rows, head_dim},
              count, head_dim, scoring);
}

// The two formats' blocks, as attention_block and attention_block_q8_0 take them.
void attend_halves(AttentionRow* rows, size_t row_count, const uint16_t* keys,
                   const uint16_t* values, size_t stride, size_t count, size_t head_dim,
                   AttentionScoring scoring, float* scratch) {
    attend(rows, row_count, HalfRows{keys, stride}, HalfRows{values, stride}, count, head_dim,
           scoring, scratch);
}

void attend_q8_0(AttentionRow* rows, size_t row_count, const BlockQ8_0* keys,
                 const BlockQ8_0* values, size_t stride, size_t count, size_t head_dim,
                 AttentionScoring scoring, float* scratch) {
    const size_t blocks = head_dim / kBlock32;
    alignas(32) float key_scales[kMaxBlockScales], value_scales[kMaxBlockScales];
    convert_scales(keys, stride, count, blocks, key_scales);
    convert_scales(values, stride, count, blocks, value_scales);
    attend(rows, row_count, Q8_0Rows{keys, stride, key_scales, blocks},
           Q8_0Rows{values, stride, value_scales, blocks}, count, head_dim, scoring, scratch);
}

}  // namespace
}  // namespace hearth::kernels
