// AVX2 RMSNorm (compiled with those instructions alone; chosen at run time): the eight sums of
// squares in two vectors of four doubles, the scaling eight floats at a time. The same bits as the
// scalar version (rms_norm.h says why).
#include <immintrin.h>

#include "kernels/rms_norm.h"

namespace hearth::kernels::avx2 {

void rms_norm(const float* x, const float* weight, size_t count, float epsilon, float* out) {
    __m256d low = _mm256_setzero_pd(), high = _mm256_setzero_pd();  // sums 0-3 and 4-7
    size_t i = 0;
    for (; i + 8 <= count; i += 8) {
        const __m256 values = _mm256_loadu_ps(x + i);
        const __m256d first = _mm256_cvtps_pd(_mm256_castps256_ps128(values));
        const __m256d second = _mm256_cvtps_pd(_mm256_extractf128_ps(values, 1));
        low = _mm256_fmadd_pd(first, first, low);
        high = _mm256_fmadd_pd(second, second, high);
    }
    double rest = 0.0;
    for (; i < count; ++i) rest += static_cast<double>(x[i]) * x[i];
    alignas(32) double sums[8];
    _mm256_store_pd(sums, low);
    _mm256_store_pd(sums + 4, high);
    const float scale = rms_scale(sums, rest, count, epsilon);
    const __m256 scales = _mm256_set1_ps(scale);
    for (i = 0; i + 8 <= count; i += 8) {
        const __m256 scaled = _mm256_mul_ps(_mm256_loadu_ps(x + i), scales);
        _mm256_storeu_ps(out + i, _mm256_mul_ps(scaled, _mm256_loadu_ps(weight + i)));
    }
    for (; i < count; ++i) out[i] = x[i] * scale * weight[i];
}

}  // namespace hearth::kernels::avx2
