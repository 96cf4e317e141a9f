// AVX2 + FMA gates (compiled with those instructions alone; chosen at run time): eight elements
// at a time through the polynomial e^x the attention kernel uses.
#include <immintrin.h>

#include "kernels/simd_helpers.h"
#include "kernels/swiglu_simd.h"

namespace hearth::kernels::avx2 {
namespace {

struct EightLanes {
    static constexpr size_t kWidth = 8;
    static __m256 set(float value) { return _mm256_set1_ps(value); }
    static __m256 load(const float* from) { return _mm256_loadu_ps(from); }
    static void store(float* to, __m256 value) { _mm256_storeu_ps(to, value); }
    static __m256 add(__m256 a, __m256 b) { return _mm256_add_ps(a, b); }
    static __m256 sub(__m256 a, __m256 b) { return _mm256_sub_ps(a, b); }
    static __m256 mul(__m256 a, __m256 b) { return _mm256_mul_ps(a, b); }
    static __m256 div(__m256 a, __m256 b) { return _mm256_div_ps(a, b); }
    static __m256 min(__m256 a, __m256 b) { return _mm256_min_ps(a, b); }
    static __m256 max(__m256 a, __m256 b) { return _mm256_max_ps(a, b); }
    static __m256 fmadd(__m256 a, __m256 b, __m256 c) { return _mm256_fmadd_ps(a, b, c); }
    static __m256 exp(__m256 x) { return kernels::exp(x); }
};

}  // namespace

void swiglu(float* gate, const float* up, size_t count) {
    const size_t done = swiglu_vectors<EightLanes>(gate, up, count);
    scalar::swiglu(gate + done, up + done, count - done);
}

void geglu(float* gate, const float* up, size_t count) {
    const size_t done = geglu_vectors<EightLanes>(gate, up, count);
    scalar::geglu(gate + done, up + done, count - done);
}

void clamped_swiglu(float* gate, const float* up, size_t count) {
    const size_t done = clamped_swiglu_vectors<EightLanes>(gate, up, count);
    scalar::clamped_swiglu(gate + done, up + done, count - done);
}

}  // namespace hearth::kernels::avx2
