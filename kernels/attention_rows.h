// A block's cached keys and values as the attention block (attention_simd.h) reads them: straight
// from an F16 or Q8_0 cache, or converted to floats once for a block many rows read (transposed
// for the keys where AVX-512 scores sixteen positions a vector). Every reader gives exactly the
// cache's values, so a row's arithmetic is the same over any of them. Compiled into each
// instruction set's file, so in an unnamed namespace, as simd_helpers.h.
#pragma once

#include <immintrin.h>

#include <algorithm>

#include "kernels/attention.h"
#include "kernels/half.h"
#include "kernels/quant_blocks.h"

namespace hearth::kernels {
namespace {

#if defined(__AVX512F__)
// Eight lanes in the low half, eight in the high (AVX-512F alone: no DQ instructions).
inline __m512 join(__m256 low, __m256 high) {
    return _mm512_castpd_ps(_mm512_insertf64x4(_mm512_castpd256_pd512(_mm256_castps_pd(low)),
                                               _mm256_castps_pd(high), 1));
}
inline __m256 low_half(__m512 v) {
    return _mm512_castps512_ps256(v);
}
inline __m256 high_half(__m512 v) {
    return _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(v), 1));
}
#endif

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
#if defined(__AVX512F__)
    __m512 load16(size_t p, size_t d) const {
        return _mm512_cvtph_ps(
            _mm256_loadu_si256(reinterpret_cast<const __m256i*>(data + p * stride + d)));
    }
    // Dimensions d .. d + 8 of position p in the low half, of position q in the high half.
    __m512 load_pair(size_t p, size_t q, size_t d) const {
        const __m128i low =
            _mm_loadu_si128(reinterpret_cast<const __m128i*>(data + p * stride + d));
        const __m128i high =
            _mm_loadu_si128(reinterpret_cast<const __m128i*>(data + q * stride + d));
        return _mm512_cvtph_ps(_mm256_inserti128_si256(_mm256_castsi128_si256(low), high, 1));
    }
#endif
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
#if defined(__AVX512F__)
    // Sixteen dimensions from d, a multiple of 16, lie in one block.
    __m512 load16(size_t p, size_t d) const {
        const BlockQ8_0& block = data[p * stride + d / kBlock32];
        const __m128i quants =
            _mm_loadu_si128(reinterpret_cast<const __m128i*>(block.quants + d % kBlock32));
        return _mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(quants)),
                             _mm512_set1_ps(scales[p * blocks + d / kBlock32]));
    }
    __m512 load_pair(size_t p, size_t q, size_t d) const {
        return join(load8(p, d), load8(q, d));
    }
#endif
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
#if defined(__AVX512F__)
    __m512 load16(size_t p, size_t d) const {
        return _mm512_loadu_ps(data + p * stride + d);
    }
    __m512 load_pair(size_t p, size_t q, size_t d) const {
        return join(_mm256_loadu_ps(data + p * stride + d), _mm256_loadu_ps(data + q * stride + d));
    }
#endif
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

#if defined(__AVX512F__)
// A converted block's keys dimension by dimension: data[d * positions + p], positions padded to
// a multiple of sixteen with zeros, so sixteen positions' values of one dimension are one vector.
struct TransposedKeys {
    const float* data;
    size_t positions;
};

// Rows r[j] (position j's eight dimensions) become r[l] (dimension l's eight positions).
inline void transpose8(__m256 (&r)[8]) {
    __m256 t[8], u[8];
    for (int j = 0; j < 8; j += 2) {
        t[j] = _mm256_unpacklo_ps(r[j], r[j + 1]);
        t[j + 1] = _mm256_unpackhi_ps(r[j], r[j + 1]);
    }
    for (int j = 0; j < 8; j += 4) {
        u[j] = _mm256_shuffle_ps(t[j], t[j + 2], 0x44);
        u[j + 1] = _mm256_shuffle_ps(t[j], t[j + 2], 0xee);
        u[j + 2] = _mm256_shuffle_ps(t[j + 1], t[j + 3], 0x44);
        u[j + 3] = _mm256_shuffle_ps(t[j + 1], t[j + 3], 0xee);
    }
    for (int l = 0; l < 4; ++l) {
        r[l] = _mm256_permute2f128_ps(u[l], u[l + 4], 0x20);
        r[l + 4] = _mm256_permute2f128_ps(u[l], u[l + 4], 0x31);
    }
}

// Transposed and padded (head_dim a multiple of 8; at most kAttentionScratch / 2 floats): eight
// positions by eight dimensions at a time, in registers (a scalar scatter was a fifth of the
// attention of a prompt).
template <typename Rows>
void convert_rows_transposed(const Rows& rows, size_t count, size_t padded, size_t head_dim,
                             float* out) {
    size_t first = 0;
    for (; first + 8 <= count; first += 8) {
        for (size_t d = 0; d < head_dim; d += 8) {
            __m256 block[8];
            for (size_t j = 0; j < 8; ++j) block[j] = rows.load8(first + j, d);
            transpose8(block);
            for (size_t l = 0; l < 8; ++l)
                _mm256_storeu_ps(out + (d + l) * padded + first, block[l]);
        }
    }
    alignas(32) float lanes[8];
    for (size_t p = first; p < count; ++p) {
        for (size_t d = 0; d < head_dim; d += 8) {
            _mm256_store_ps(lanes, rows.load8(p, d));
            for (size_t l = 0; l < 8; ++l) out[(d + l) * padded + p] = lanes[l];
        }
    }
    for (size_t d = 0; d < head_dim; ++d) {
        std::fill(out + d * padded + count, out + (d + 1) * padded, 0.0f);
    }
}
#endif

}  // namespace
}  // namespace hearth::kernels
