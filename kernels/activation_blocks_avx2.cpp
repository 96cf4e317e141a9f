// AVX2 quantisation of activation rows (this file alone is compiled with AVX2; activation_blocks
// calls it only after the CPU confirmed it). Decode quantises every matrix's input once per token
// on one thread while the others wait, so the scalar loops' call to nearbyint per element shows
// (SmolLM-135M Q3_K_M: the Q8K loop alone took 4% of a decode step). Bit for bit the scalar
// result: the same maximum, the same division, the same product, rounded to nearest even.
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

// The largest magnitude of `vectors` vectors of eight at x. |x| first: maxps returns its second
// operand for a NaN, so a NaN is passed over as std::max(largest, |x|) passes it over.
float largest_magnitude(const float* x, int vectors) {
    const __m256 magnitude = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff));
    __m256 largest = _mm256_setzero_ps();
    for (int i = 0; i < vectors; ++i) {
        largest = _mm256_max_ps(_mm256_and_ps(_mm256_loadu_ps(x + 8 * i), magnitude), largest);
    }
    return largest_of(largest);
}

// x * inverse rounded to the nearest integer (ties to even), as int32.
__m256i rounded(const float* x, __m256 inverse) {
    return _mm256_cvtps_epi32(_mm256_round_ps(_mm256_mul_ps(_mm256_loadu_ps(x), inverse),
                                              _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
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

// Per 16 elements: clamped to ±127 as the scalar loop clamps, packed to bytes in element order,
// and summed (the k-quants' minimums multiply the sums).
void quantize_row_q8k(const float* x, BlockQ8K* out, size_t count) {
    const __m256i high = _mm256_set1_epi32(127), low = _mm256_set1_epi32(-127);
    for (size_t b = 0; b < count / 256; ++b, x += 256) {
        const float scale = largest_magnitude(x, 32) / 127.0f;
        const __m256 inverse = _mm256_set1_ps(scale != 0.0f ? 1.0f / scale : 0.0f);
        for (int group = 0; group < 16; ++group) {
            __m256i q[2];
            for (int i = 0; i < 2; ++i) {
                q[i] = _mm256_max_epi32(
                    _mm256_min_epi32(rounded(x + 16 * group + 8 * i, inverse), high), low);
            }
            // packs interleaves the 128-bit halves: words 0-3, 8-11, 4-7, 12-15.
            const __m256i words = _mm256_packs_epi32(q[0], q[1]);
            const __m128i bytes =
                _mm_packs_epi16(_mm256_castsi256_si128(words), _mm256_extracti128_si256(words, 1));
            _mm_storeu_si128(reinterpret_cast<__m128i*>(out[b].quants + 16 * group),
                             _mm_shuffle_epi32(bytes, _MM_SHUFFLE(3, 1, 2, 0)));
            out[b].sums[group] = static_cast<int16_t>(sum_of(_mm256_add_epi32(q[0], q[1])));
        }
        out[b].scale = scale;
    }
}

}  // namespace hearth::kernels::avx2
