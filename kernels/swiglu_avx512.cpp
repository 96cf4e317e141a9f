// AVX-512 gates (compiled with those instructions alone; chosen at run time): sixteen elements at
// a time through avx512_helpers' exp, the AVX2 polynomial in every lane, so each element gets the
// AVX2 gate's bits; a tail of fewer than sixteen goes to the AVX2 gate. SmolLM-135M's pp512 spent
// 3% of its time in the AVX2 SwiGLU.
#include <immintrin.h>

#include "kernels/avx512_helpers.h"
#include "kernels/swiglu_simd.h"

namespace hearth::kernels::avx512 {
namespace {

struct SixteenLanes {
    static constexpr size_t kWidth = 16;
    static __m512 set(float value) { return _mm512_set1_ps(value); }
    static __m512 load(const float* from) { return _mm512_loadu_ps(from); }
    static void store(float* to, __m512 value) { _mm512_storeu_ps(to, value); }
    static __m512 add(__m512 a, __m512 b) { return _mm512_add_ps(a, b); }
    static __m512 sub(__m512 a, __m512 b) { return _mm512_sub_ps(a, b); }
    static __m512 mul(__m512 a, __m512 b) { return _mm512_mul_ps(a, b); }
    static __m512 div(__m512 a, __m512 b) { return _mm512_div_ps(a, b); }
    static __m512 min(__m512 a, __m512 b) { return _mm512_min_ps(a, b); }
    static __m512 max(__m512 a, __m512 b) { return _mm512_max_ps(a, b); }
    static __m512 fmadd(__m512 a, __m512 b, __m512 c) { return _mm512_fmadd_ps(a, b, c); }
    static __m512 exp(__m512 x) { return kernels::exp(x); }
};

}  // namespace

void swiglu(float* gate, const float* up, size_t count) {
    const size_t done = swiglu_vectors<SixteenLanes>(gate, up, count);
    avx2::swiglu(gate + done, up + done, count - done);
}

void geglu(float* gate, const float* up, size_t count) {
    const size_t done = geglu_vectors<SixteenLanes>(gate, up, count);
    avx2::geglu(gate + done, up + done, count - done);
}

void clamped_swiglu(float* gate, const float* up, size_t count) {
    const size_t done = clamped_swiglu_vectors<SixteenLanes>(gate, up, count);
    avx2::clamped_swiglu(gate + done, up + done, count - done);
}

}  // namespace hearth::kernels::avx512
