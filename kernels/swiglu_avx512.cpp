// AVX-512 gates (compiled with those instructions alone; chosen at run time): sixteen elements at
// a time through avx512_helpers' exp, the AVX2 polynomial in every lane, so each element gets the
// AVX2 gate's bits; a tail of fewer than sixteen goes to the AVX2 gate. SmolLM-135M's pp512 spent
// 3% of its time in the AVX2 SwiGLU.
#include <immintrin.h>

#include "kernels/avx512_helpers.h"
#include "kernels/swiglu_simd.h"

namespace hearth::kernels::avx512 {

void swiglu(float* gate, const float* up, size_t count) {
    const size_t done = swiglu_vectors<SixteenFloats>(gate, up, count);
    avx2::swiglu(gate + done, up + done, count - done);
}

void geglu(float* gate, const float* up, size_t count) {
    const size_t done = geglu_vectors<SixteenFloats>(gate, up, count);
    avx2::geglu(gate + done, up + done, count - done);
}

void clamped_swiglu(float* gate, const float* up, size_t count) {
    const size_t done = clamped_swiglu_vectors<SixteenFloats>(gate, up, count);
    avx2::clamped_swiglu(gate + done, up + done, count - done);
}

}  // namespace hearth::kernels::avx512
