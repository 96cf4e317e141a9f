// AVX2 quantisation of activation rows (this file alone is compiled with AVX2; activation_blocks
// calls it only after the CPU confirmed it). Decode quantises every matrix's input once per token
// on one thread while the others wait, so the scalar loop's call to nearbyint per element shows.
// Bit for bit the scalar result: the same maximum, the same division, the same product, rounded
// to nearest even.
#include <immintrin.h>

#include "kernels/activation_blocks.h"

namespace hearth::kernels::avx2 {
namespace {

float largest_of(__m256 v) {
    __m128 m = _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    m = _mm_max_ps(m, _mm_movehl_ps(m, m));
    return _mm_cvtss_f32(_mm_max_ss(m, _mm_movehdup_ps(m)));
}

int sum_of(__m256i v) {
    __m128i s = _mm_add_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0x4e));
    return _mm_cvtsi128_si32(_mm_add_epi32(s, _mm_shuffle_epi32(s, 0xb1)));
}

}  // namespace

void quantize_row_q8(const float* x, BlockQ8* out, size_t count) {
    const __m256 magnitude = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff));
    for (size_t b = 0; b < count / 32; ++b, x += 32) {
        __m256 v[4];
        __m256 largest = _mm256_setzero_ps();
        for (int i = 0; i < 4; ++i) {
            v[i] = _mm256_loadu_ps(x + 8 * i);
            // |x| first: maxps returns its second operand for a NaN, so a NaN is passed over
            // as std::max(largest, |x|) passes it over.
            largest = _mm256_max_ps(_mm256_and_ps(v[i], magnitude), largest);
        }
        const float scale = largest_of(largest) / 127.0f;
        const __m256 inverse = _mm256_set1_ps(scale != 0.0f ? 1.0f / scale : 0.0f);
        __m256i q[4];
        for (int i = 0; i < 4; ++i) {
            q[i] = _mm256_cvtps_epi32(_mm256_round_ps(
                _mm256_mul_ps(v[i], inverse), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
        }
        // int32 -> int8 in element order (packs interleave 128-bit halves; the permute undoes it).
        const __m256i words = _mm256_packs_epi32(q[0], q[1]), more = _mm256_packs_epi32(q[2], q[3]);
        const __m256i bytes = _mm256_permutevar8x32_epi32(
            _mm256_packs_epi16(words, more), _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(out[b].quants), bytes);
        const int sum =
            sum_of(_mm256_add_epi32(_mm256_add_epi32(q[0], q[1]), _mm256_add_epi32(q[2], q[3])));
        out[b].scale = scale;
        out[b].scaled_sum = scale * static_cast<float>(sum);
    }
}

}  // namespace hearth::kernels::avx2
