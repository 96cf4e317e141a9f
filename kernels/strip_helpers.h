// What the strip kernels (strips_vnni.cpp, q4_0_strips_amx.cpp) share: a block's quads, a pass's
// tokens and their sums with the float operations that make every kernel equal the twin, and the
// passes over the tokens. Compiled into each with its own instruction sets, so
// in an unnamed namespace, as dot_many.h's templates.
#pragma once

#include <immintrin.h>

#include <array>
#include <cstddef>

#include "kernels/activation_blocks.h"
#include "kernels/dot_many.h"
#include "kernels/strips.h"

namespace hearth::kernels {
namespace {

// A block's eight quads, one 32-bit lane a row: the low nibbles of nibbles[q] are quad q, the
// high ones quad 4 + q.
struct Quads {
    __m512i quad[8];
};

// The quads of a strip's nibbles, each nibble made a value by `values`, which reads the low four
// bits of each byte and ignores the rest.
template <typename Values>
[[gnu::always_inline]] inline Quads unpack(const StripNibbles& nibbles, const Values& values) {
    Quads quads;
#pragma GCC unroll 4
    for (int q = 0; q < 4; ++q) {
        const __m512i bytes = _mm512_loadu_si512(nibbles[q]);
        quads.quad[q] = values(bytes);
        quads.quad[q + 4] = values(_mm512_srli_epi16(bytes, 4));
    }
    return quads;
}

// Q4_0's values: the nibbles themselves, unsigned.
struct NibbleValues {
    __m512i mask = _mm512_set1_epi8(0x0f);
    [[gnu::always_inline]] __m512i operator()(__m512i bytes) const {
        return _mm512_and_si512(bytes, mask);
    }
};

// N tokens' activation rows (BlockQ8Offset, or Q3_K's BlockQ8K) and their sums with the strip's
// sixteen rows, one lane a row.
template <int N, typename Activations = BlockQ8Offset>
struct StripSums {
    std::array<const Activations*, N> tokens;
    __m512 sums[N];

    StripSums(const std::byte* activations, size_t stride) {
        for (int t = 0; t < N; ++t) {
            tokens[t] =
                reinterpret_cast<const Activations*>(activations + static_cast<size_t>(t) * stride);
            sums[t] = _mm512_setzero_ps();
        }
    }

    // Adds token t's exact integer dots with block b (the offset already taken out): one
    // conversion, the scales' product and one FMA, as scalar::dot_q4_0_offset and
    // scalar::dot_q3_k_fma do.
    [[gnu::always_inline]] void add(int t, size_t b, __m512i dots, __m512 weight_scales) {
        const __m512 scales = _mm512_mul_ps(weight_scales, _mm512_set1_ps(tokens[t][b].scale));
        sums[t] = _mm512_fmadd_ps(scales, _mm512_cvtepi32_ps(dots), sums[t]);
    }

    // The first `rows` lanes of each token's sums, token t's at out + t * out_stride.
    void store(size_t rows, float* out, size_t out_stride) const {
        const auto written = static_cast<__mmask16>((1u << rows) - 1);
        for (int t = 0; t < N; ++t)
            _mm512_mask_storeu_ps(out + static_cast<size_t>(t) * out_stride, written, sums[t]);
    }
};

// A block's sixteen f16 weight scales as floats.
[[gnu::always_inline]] inline __m512 weight_scales(const uint16_t (&scales)[16]) {
    return _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(scales)));
}

// A StripRowsFunction's body: passes of at most Most tokens, each by Pass<N>::run(strip, rows,
// first token's activations, stride, its results, out_stride, columns).
template <int Most, template <int> class Pass>
void strip_passes(const void* strip, size_t rows, const void* activations, size_t activation_stride,
                  size_t tokens, float* out, size_t out_stride, size_t count) {
    const auto* first = static_cast<const std::byte*>(activations);
    in_passes<Most>(tokens, [&](auto size, size_t done) {
        Pass<decltype(size)::value>::run(strip, rows, first + done * activation_stride,
                                         activation_stride, out + done * out_stride, out_stride,
                                         count);
    });
}

}  // namespace
}  // namespace hearth::kernels
