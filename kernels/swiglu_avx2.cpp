// AVX2 + FMA gates (compiled with those instructions alone; chosen at run time): eight elements
// at a time through the polynomial e^x the attention kernel uses.
#include <immintrin.h>

#include "kernels/simd_helpers.h"
#include "kernels/swiglu_simd.h"

namespace hearth::kernels::avx2 {

void swiglu(float* gate, const float* up, size_t count) {
    const size_t done = swiglu_vectors<EightFloats>(gate, up, count);
    scalar::swiglu(gate + done, up + done, count - done);
}

void geglu(float* gate, const float* up, size_t count) {
    const size_t done = geglu_vectors<EightFloats>(gate, up, count);
    scalar::geglu(gate + done, up + done, count - done);
}

void clamped_swiglu(float* gate, const float* up, size_t count) {
    const size_t done = clamped_swiglu_vectors<EightFloats>(gate, up, count);
    scalar::clamped_swiglu(gate + done, up + done, count - done);
}

}  // namespace hearth::kernels::avx2
