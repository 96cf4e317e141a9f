// AVX2 row kernels (DotRowsFunction): eight weight rows side by side, one per 32-bit lane, so a
// token's dot products with all eight come out of one chain of vector operations with no
// horizontal sums. Per Q4_0 block the eight rows' nibbles are transposed once into eight vectors
// of (8 rows x 4 consecutive weights); each token then broadcasts 4 of its activation bytes per
// vector: 8 maddubs, the int16 sums added (at most 8 x 2 x 15 x 127 = 30480, no overflow), one
// madd to int32, the offset of the unsigned nibbles taken out exactly, one conversion and one
// fused multiply-add. That is about 20 operations per 256 multiply-adds for a token, where the
// one-row kernel (dot_avx2.cpp) takes about 56.
//
// Each lane's float operations are the same whatever rows share the vector and whatever tokens
// share the pass, so the single-token dot is the same kernel over one row and a row's results
// never depend on the batch (scalar::dot_q4_0_offset is its twin).
#include <immintrin.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstring>
#include <type_traits>

#include "kernels/activation_blocks.h"
#include "kernels/dot.h"
#include "kernels/dot_variants.h"
#include "kernels/quant_blocks.h"

namespace hearth::kernels::avx2 {
namespace {

// Tokens per pass over a group of rows. Eight ran 12% faster per token than four on this AVX2
// Zen 4 host (5632 x 2048, one thread), though their accumulators and the eight unpacked
// vectors no longer all fit in the sixteen vector registers: the shared unpacking halves again.
constexpr size_t kRowTokens = 8;

// The eight rows a kernel reads: a row past `rows` repeats the last one (its lanes' results are
// dropped), so partial groups run the same code.
struct RowGroup {
    std::array<const uint8_t*, kDotRows> rows;
    const uint8_t* next;  // where the next group of rows starts, to prefetch
};

RowGroup row_group(const void* weights, size_t row_bytes, size_t rows) {
    RowGroup group;
    for (size_t r = 0; r < kDotRows; ++r) {
        const size_t row = std::min(r, rows - 1);
        group.rows[r] = static_cast<const uint8_t*>(weights) + row * row_bytes;
    }
    group.next = static_cast<const uint8_t*>(weights) + kDotRows * row_bytes;
    return group;
}

// The eight rows' f16 scales of block b as floats, one per lane. Eight scalar loads and inserts:
// a vpgatherdd instead made the whole kernel 25% slower for one token on Zen 4.
[[gnu::always_inline]] inline __m256 q4_0_scales(const RowGroup& group, size_t b) {
    const size_t at = b * sizeof(BlockQ4_0);
    uint16_t bits[kDotRows];
    for (size_t r = 0; r < kDotRows; ++r) std::memcpy(&bits[r], group.rows[r] + at, sizeof bits[r]);
    return _mm256_cvtph_ps(_mm_setr_epi16(
        static_cast<int16_t>(bits[0]), static_cast<int16_t>(bits[1]), static_cast<int16_t>(bits[2]),
        static_cast<int16_t>(bits[3]), static_cast<int16_t>(bits[4]), static_cast<int16_t>(bits[5]),
        static_cast<int16_t>(bits[6]), static_cast<int16_t>(bits[7])));
}

// A vector type cannot be a std::array's element without losing its alignment attributes.
struct Quads {
    __m256i quad[8];
};

// Block b of the eight rows as eight vectors of (row in 32-bit lane, 4 nibbles): vector q holds
// elements 4q..4q+3 of each row, the order of the activations' bytes. A block's byte j holds
// elements j and j + 16, so row dword k gives quad k in its low nibbles and quad 4 + k in its
// high ones: a 4 x 4 dword transpose in each 128-bit half (rows 0-3 low, 4-7 high) puts it there.
[[gnu::always_inline]] inline Quads q4_0_quads(const RowGroup& group, size_t b) {
    const size_t at = b * sizeof(BlockQ4_0) + offsetof(BlockQ4_0, quants);
    __m256i pairs[4];
    for (int r = 0; r < 4; ++r) {
        pairs[r] = _mm256_loadu2_m128i(reinterpret_cast<const __m128i*>(group.rows[r + 4] + at),
                                       reinterpret_cast<const __m128i*>(group.rows[r] + at));
    }
    const __m256i low01 = _mm256_unpacklo_epi32(pairs[0], pairs[1]);
    const __m256i high01 = _mm256_unpackhi_epi32(pairs[0], pairs[1]);
    const __m256i low23 = _mm256_unpacklo_epi32(pairs[2], pairs[3]);
    const __m256i high23 = _mm256_unpackhi_epi32(pairs[2], pairs[3]);
    const __m256i dwords[4] = {
        _mm256_unpacklo_epi64(low01, low23), _mm256_unpackhi_epi64(low01, low23),
        _mm256_unpacklo_epi64(high01, high23), _mm256_unpackhi_epi64(high01, high23)};
    const __m256i mask = _mm256_set1_epi8(0x0f);
    Quads quads;
    for (int k = 0; k < 4; ++k) {
        quads.quad[k] = _mm256_and_si256(dwords[k], mask);
        quads.quad[k + 4] = _mm256_and_si256(_mm256_srli_epi16(dwords[k], 4), mask);
    }
    return quads;
}

// One token's eight integer dots with a block of the rows, its nibbles' offset taken out.
[[gnu::always_inline]] inline __m256i q4_0_block_dot(const Quads& quads, const BlockQ8Offset& y) {
    __m256i products[8];
    for (int q = 0; q < 8; ++q) {
        int32_t activations;
        std::memcpy(&activations, y.quants + 4 * q, sizeof activations);
        products[q] = _mm256_maddubs_epi16(quads.quad[q], _mm256_set1_epi32(activations));
    }
    const __m256i sum16 =
        _mm256_add_epi16(_mm256_add_epi16(_mm256_add_epi16(products[0], products[1]),
                                          _mm256_add_epi16(products[2], products[3])),
                         _mm256_add_epi16(_mm256_add_epi16(products[4], products[5]),
                                          _mm256_add_epi16(products[6], products[7])));
    const __m256i sum32 = _mm256_madd_epi16(sum16, _mm256_set1_epi16(1));
    return _mm256_sub_epi32(sum32, _mm256_set1_epi32(y.offset));
}

// Eight rows read side by side are eight streams 18 bytes a step, which the hardware
// prefetchers follow poorly: single-token decode from memory ran 1.5 times slower than the
// one-row kernel's single stream until each step fetched the next group's share of lines ahead,
// the rows of a product being contiguous. (Prefetches never fault past the end.)
[[gnu::always_inline]] inline void prefetch_next(const RowGroup& group, size_t b) {
    constexpr size_t kStep = kDotRows * sizeof(BlockQ4_0);  // bytes of the group one block reads
    const auto* ahead = reinterpret_cast<const char*>(group.next + b * kStep);
    _mm_prefetch(ahead, _MM_HINT_T0);
    _mm_prefetch(ahead + 64, _MM_HINT_T0);
    _mm_prefetch(ahead + 128, _MM_HINT_T0);
}

// K tokens (token t's blocks at activations + t * stride) against the eight rows.
template <size_t K>
void q4_0_pass(const RowGroup& group, size_t rows, const std::byte* activations, size_t stride,
               float* out, size_t out_stride, size_t count) {
    std::array<const BlockQ8Offset*, K> y;
    for (size_t t = 0; t < K; ++t) {
        y[t] = reinterpret_cast<const BlockQ8Offset*>(activations + t * stride);
    }
    __m256 sums[K];
    for (size_t t = 0; t < K; ++t) sums[t] = _mm256_setzero_ps();
    for (size_t b = 0; b < count / 32; ++b) {
        prefetch_next(group, b);
        const __m256 weight_scales = q4_0_scales(group, b);
        const Quads quads = q4_0_quads(group, b);
        for (size_t t = 0; t < K; ++t) {
            const __m256i dot = q4_0_block_dot(quads, y[t][b]);
            const __m256 scales = _mm256_mul_ps(weight_scales, _mm256_broadcast_ss(&y[t][b].scale));
            sums[t] = _mm256_fmadd_ps(scales, _mm256_cvtepi32_ps(dot), sums[t]);
        }
    }
    for (size_t t = 0; t < K; ++t) {
        float* row_out = out + t * out_stride;
        if (rows == kDotRows) {
            _mm256_storeu_ps(row_out, sums[t]);
        } else {
            alignas(32) float lanes[kDotRows];
            _mm256_store_ps(lanes, sums[t]);
            std::copy(lanes, lanes + rows, row_out);
        }
    }
}

// Whole passes of kRowTokens tokens, then what is left in halving passes, each compiled for
// its number of tokens.
void q4_0_rows(const void* weights, size_t row_bytes, size_t rows, const void* activations,
               size_t activation_stride, size_t tokens, float* out, size_t out_stride,
               size_t count) {
    const RowGroup group = row_group(weights, row_bytes, rows);
    const auto* first = static_cast<const std::byte*>(activations);
    size_t done = 0;
    const auto run = [&](auto size) {
        constexpr size_t K = decltype(size)::value;
        for (; tokens - done >= K; done += K) {
            q4_0_pass<K>(group, rows, first + done * activation_stride, activation_stride,
                         out + done * out_stride, out_stride, count);
        }
    };
    run(std::integral_constant<size_t, kRowTokens>{});
    if constexpr (kRowTokens > 4) run(std::integral_constant<size_t, 4>{});
    if constexpr (kRowTokens > 2) run(std::integral_constant<size_t, 2>{});
    run(std::integral_constant<size_t, 1>{});
}

// The single-token dot: one row in every lane. It costs eight times the row kernel's work per
// row, but only rows outside whole groups of eight and callers outside the batched products
// take it; what matters is that its numbers are the row kernel's.
float q4_0_dot(const void* weights, const void* activations, size_t count) {
    float result = 0.0f;
    q4_0_rows(weights, 0, 1, activations, 0, 1, &result, 0, count);
    return result;
}

void q4_0_many(const void* weights, const void* activations, size_t activation_stride,
               size_t tokens, float* out, size_t out_stride, size_t count) {
    q4_0_rows(weights, 0, 1, activations, activation_stride, tokens, out, out_stride, count);
}

}  // namespace

void set_row_kernels(DotTable& table) {
    table.dot[kQ4_0] = q4_0_dot;
    table.dot_many[kQ4_0] = q4_0_many;
    table.dot_rows[kQ4_0] = q4_0_rows;
    table.format[kQ4_0] = ActivationFormat::Q8Offset;
}

}  // namespace hearth::kernels::avx2
