// AVX2 + FMA SwiGLU (compiled with those instructions alone; chosen at run time): eight
// elements at a time through the polynomial e^x the attention kernel uses.
#include <immintrin.h>

#include "kernels/simd_helpers.h"
#include "kernels/swiglu.h"

namespace hearth::kernels::avx2 {

void swiglu(float* gate, const float* up, size_t count) {
    const __m256 one = _mm256_set1_ps(1.0f);
    size_t i = 0;
    for (; i + 8 <= count; i += 8) {
        const __m256 x = _mm256_loadu_ps(gate + i);
        const __m256 silu =
            _mm256_div_ps(x, _mm256_add_ps(one, exp(_mm256_sub_ps(_mm256_setzero_ps(), x))));
        _mm256_storeu_ps(gate + i, _mm256_mul_ps(silu, _mm256_loadu_ps(up + i)));
    }
    scalar::swiglu(gate + i, up + i, count - i);
}

void geglu(float* gate, const float* up, size_t count) {
    const __m256 one = _mm256_set1_ps(1.0f);
    const __m256 minus_twice_scale = _mm256_set1_ps(-2.0f * kGeluScale);
    const __m256 cubic = _mm256_set1_ps(0.044715f);
    size_t i = 0;
    for (; i + 8 <= count; i += 8) {
        const __m256 x = _mm256_loadu_ps(gate + i);
        const __m256 inner = _mm256_fmadd_ps(_mm256_mul_ps(cubic, x), _mm256_mul_ps(x, x), x);
        const __m256 gelu =
            _mm256_div_ps(x, _mm256_add_ps(one, exp(_mm256_mul_ps(minus_twice_scale, inner))));
        _mm256_storeu_ps(gate + i, _mm256_mul_ps(gelu, _mm256_loadu_ps(up + i)));
    }
    scalar::geglu(gate + i, up + i, count - i);
}

// min and max take their second operand where either is NaN: the limits go first, so a NaN gate
// or up value stays NaN, as in the scalar twin.
void clamped_swiglu(float* gate, const float* up, size_t count) {
    const __m256 one = _mm256_set1_ps(1.0f);
    const __m256 limit = _mm256_set1_ps(kClampedSwigluLimit);
    const __m256 negative_limit = _mm256_set1_ps(-kClampedSwigluLimit);
    const __m256 minus_alpha = _mm256_set1_ps(-kClampedSwigluAlpha);
    size_t i = 0;
    for (; i + 8 <= count; i += 8) {
        const __m256 x = _mm256_min_ps(limit, _mm256_loadu_ps(gate + i));
        const __m256 y =
            _mm256_max_ps(negative_limit, _mm256_min_ps(limit, _mm256_loadu_ps(up + i)));
        const __m256 gated =
            _mm256_div_ps(x, _mm256_add_ps(one, exp(_mm256_mul_ps(minus_alpha, x))));
        _mm256_storeu_ps(gate + i, _mm256_mul_ps(gated, _mm256_add_ps(y, one)));
    }
    scalar::clamped_swiglu(gate + i, up + i, count - i);
}

}  // namespace hearth::kernels::avx2
