// The block primitives the AVX2 dot kernels share (dot_avx2.cpp, dot_lookup_avx2.cpp): integer
// dots of byte vectors, unpacked nibbles and grids, and the scaled accumulation. An unnamed
// namespace, as in simd_helpers.h: only files compiled with AVX2, FMA and F16C include this, and
// each keeps its own copies.
#pragma once

#include <immintrin.h>

#include <cstdint>

namespace hearth::kernels::avx2 {
namespace {

// Eight int32 sums of products of signed bytes (x, y): |x| times y with x's sign moved onto y.
inline __m256i signed_dot(__m256i x, __m256i y) {
    const __m256i products = _mm256_maddubs_epi16(_mm256_sign_epi8(x, x), _mm256_sign_epi8(y, x));
    return _mm256_madd_epi16(products, _mm256_set1_epi16(1));
}

// One f16 scale through F16C: the scalar conversion's subnormal handling costs more than the
// block's whole integer dot product.
inline float half(uint16_t bits) {
    return _cvtsh_ss(bits);
}

// acc + weight_scale * activation_scale * dot, lane by lane, in a kernel for K tokens. The two
// scales' product is rounded once either way: one token multiplies them as scalars and
// broadcasts the product; a group broadcasts the weight scale once and each token's scale
// straight from memory, and multiplies them in a vector, one instruction fewer per token.
template <int K>
inline __m256 add_scaled(__m256 acc, float weight_scale, const float& activation_scale,
                         __m256i dot) {
    const __m256 scale = K == 1 ? _mm256_set1_ps(weight_scale * activation_scale)
                                : _mm256_mul_ps(_mm256_set1_ps(weight_scale),
                                                _mm256_broadcast_ss(&activation_scale));
    return _mm256_fmadd_ps(scale, _mm256_cvtepi32_ps(dot), acc);
}

// The 32 low nibbles of a *_0/*_1 block in element order (low nibbles 0..15, high 16..31).
inline __m256i nibbles(const uint8_t* quants) {
    const __m128i packed = _mm_loadu_si128(reinterpret_cast<const __m128i*>(quants));
    return _mm256_and_si256(_mm256_set_m128i(_mm_srli_epi16(packed, 4), packed),
                            _mm256_set1_epi8(0x0f));
}

// A grid of 16 signed bytes (IQ4's, MXFP4's) in both 128-bit halves, for byte shuffles that look
// 4-bit indices up.
inline __m256i grid_table(const int8_t (&grid)[16]) {
    return _mm256_broadcastsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(grid)));
}

}  // namespace
}  // namespace hearth::kernels::avx2
