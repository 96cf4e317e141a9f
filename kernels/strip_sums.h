// What the Q4_0 strip kernels (q4_0_strips_vnni.cpp, q4_0_strips_amx.cpp) share: a pass's tokens
// and their sums, with the float operations that make every kernel equal the twin. Compiled into
// each with its own instruction sets, so in an unnamed namespace, as dot_many.h's templates.
#pragma once

#include <immintrin.h>

#include <array>
#include <cstddef>

#include "kernels/activation_blocks.h"

namespace hearth::kernels {
namespace {

// N tokens' BlockQ8Offset rows and their sums with the strip's sixteen rows, one lane a row.
template <int N>
struct StripSums {
    std::array<const BlockQ8Offset*, N> tokens;
    __m512 sums[N];

    StripSums(const std::byte* activations, size_t stride) {
        for (int t = 0; t < N; ++t) {
            tokens[t] = reinterpret_cast<const BlockQ8Offset*>(activations +
                                                               static_cast<size_t>(t) * stride);
            sums[t] = _mm512_setzero_ps();
        }
    }

    // Adds token t's exact integer dots with block b (the offset already taken out): one
    // conversion, the scales' product and one FMA, as scalar::dot_q4_0_offset does.
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

}  // namespace
}  // namespace hearth::kernels
