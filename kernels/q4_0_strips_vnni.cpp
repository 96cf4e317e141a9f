// The AVX-512 VNNI kernel over Q4_0 strips (q4_0_strips.h), compiled with AVX-512: the strip's
// sixteen rows in the sixteen 32-bit lanes. Per block the 256 nibble bytes load as four vectors
// whose low and high nibbles are the eight quads; each token then broadcasts four of its
// activation bytes per quad: 8 vpdpbusd, the unsigned nibbles' offset taken out exactly, one
// conversion, one scale product and one FMA for 512 multiply-adds. The row layout's kernel
// (dot_grid_vnni.cpp) spends the same 8 vpdpbusd but six float operations and the byte permutes
// that gather a row's blocks into lanes. One thread, 5632 x 2048, µs a token, strips against
// rows: one token 219 against 231, four 68.9 against 94.4, eight 56.4 against 78.6.
#include <immintrin.h>

#include <cstring>

#include "kernels/activation_blocks.h"
#include "kernels/dot_variants.h"
#include "kernels/q4_0_strips.h"
#include "kernels/simd_helpers.h"
#include "kernels/strip_helpers.h"

namespace hearth::kernels::vnni {
namespace {

constexpr int kPassTokens = 8;  // tokens sharing a block's unpacking

[[gnu::always_inline]] inline __m512i broadcast_word(const int8_t* quants, int q) {
    int32_t word;
    std::memcpy(&word, quants + 4 * q, sizeof word);
    return _mm512_set1_epi32(word);
}

// One token's sixteen integer dots with a block, the offset taken out: two chains of four, so
// the products do not wait on each other's latency.
[[gnu::always_inline]] inline __m512i block_dot(const Quads& quads, const BlockQ8Offset& y) {
    __m512i low = _mm512_set1_epi32(-y.offset), high = _mm512_setzero_si512();
#pragma GCC unroll 4
    for (int q = 0; q < 4; ++q) {
        low = _mm512_dpbusd_epi32(low, quads.quad[q], broadcast_word(y.quants, q));
        high = _mm512_dpbusd_epi32(high, quads.quad[q + 4], broadcast_word(y.quants, q + 4));
    }
    return _mm512_add_epi32(low, high);
}

// N tokens against a strip.
template <int N>
struct StripPass {
    static void run(const StripBlock* strip, size_t rows, const std::byte* activations,
                    size_t stride, float* out, size_t out_stride, size_t blocks);
};

template <int N>
void StripPass<N>::run(const StripBlock* strip, size_t rows, const std::byte* activations,
                       size_t stride, float* out, size_t out_stride, size_t blocks) {
    StripSums<N> pass(activations, stride);
    for (size_t b = 0; b < blocks; ++b) {
        // A strip is one contiguous stream, but the hardware prefetchers alone left decode from
        // DRAM (TinyLlama, every Q4_0 matrix in strips, 2 threads) at 36-39 tok/s against the
        // row layout's 41; fetching 2 KiB ahead brought it to 39-41.
        prefetch_ahead(&strip[b]);
        const Quads quads = unpack(strip[b]);
        const __m512 scales = weight_scales(strip[b].scales);
#pragma GCC unroll 8
        for (int t = 0; t < N; ++t) pass.add(t, b, block_dot(quads, pass.tokens[t][b]), scales);
    }
    pass.store(rows, out, out_stride);
}

}  // namespace

void q4_0_strip_rows(const StripBlock* strip, size_t rows, const void* activations,
                     size_t activation_stride, size_t tokens, float* out, size_t out_stride,
                     size_t count) {
    strip_rows<kPassTokens, StripPass>(strip, rows, activations, activation_stride, tokens, out,
                                       out_stride, count);
}

}  // namespace hearth::kernels::vnni
