// AVX2 rotation (compiled with AVX2 alone, without FMA, so no multiply-add can be fused and every
// element rounds as in the scalar version): eight pairs of halves, or four adjacent pairs, a
// vector.
#include <immintrin.h>

#include "kernels/rope.h"

namespace hearth::kernels::avx2 {
namespace {

// Each returns how many pairs its whole vectors rotated; the scalar version does the rest.
size_t rotate_halves(float* head, const float* cosines, const float* sines, size_t pairs) {
    float* second = head + pairs;
    size_t i = 0;
    for (; i + 8 <= pairs; i += 8) {
        const __m256 a = _mm256_loadu_ps(head + i), b = _mm256_loadu_ps(second + i);
        const __m256 cosine = _mm256_loadu_ps(cosines + i), sine = _mm256_loadu_ps(sines + i);
        _mm256_storeu_ps(head + i, _mm256_sub_ps(_mm256_mul_ps(a, cosine), _mm256_mul_ps(b, sine)));
        _mm256_storeu_ps(second + i,
                         _mm256_add_ps(_mm256_mul_ps(a, sine), _mm256_mul_ps(b, cosine)));
    }
    return i;
}

// Four pairs (a0 b0 a1 b1 ...) a vector: each angle twice, b a beside a, and addsub's
// (a cos - b sin, b cos + a sin); the second is the scalar a sin + b cos, added the other way
// round, which rounds alike.
size_t rotate_adjacent(float* head, const float* cosines, const float* sines, size_t pairs) {
    const __m256i twice = _mm256_setr_epi32(0, 0, 1, 1, 2, 2, 3, 3);
    size_t i = 0;
    for (; i + 4 <= pairs; i += 4) {
        const __m256 x = _mm256_loadu_ps(head + 2 * i);
        const __m256 cosine =
            _mm256_permutevar8x32_ps(_mm256_castps128_ps256(_mm_loadu_ps(cosines + i)), twice);
        const __m256 sine =
            _mm256_permutevar8x32_ps(_mm256_castps128_ps256(_mm_loadu_ps(sines + i)), twice);
        const __m256 swapped = _mm256_permute_ps(x, 0xb1);
        _mm256_storeu_ps(head + 2 * i,
                         _mm256_addsub_ps(_mm256_mul_ps(x, cosine), _mm256_mul_ps(swapped, sine)));
    }
    return i;
}

}  // namespace

void rope_rotate(RopePairing pairing, float* head, const float* cosines, const float* sines,
                 size_t pairs) {
    const size_t done = pairing == RopePairing::Adjacent
                            ? rotate_adjacent(head, cosines, sines, pairs)
                            : rotate_halves(head, cosines, sines, pairs);
    scalar::rope_rotate_from(pairing, head, cosines, sines, done, pairs);
}

}  // namespace hearth::kernels::avx2
