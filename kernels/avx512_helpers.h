// Small AVX-512 helpers shared by the AVX-512 kernel files (and only those: each includes this
// in an unnamed namespace, as simd_helpers.h, so no AVX-512 code is merged into other files).
#pragma once

#include <immintrin.h>

#include "kernels/simd_helpers.h"

namespace hearth::kernels {
namespace {

// The sum of a vector's 16 lanes in a fixed tree (the scalar twins follow it): lane i plus
// lane i + 8, then simd_helpers' horizontal_sum of those eight.
inline float sum_of(__m512 v) {
    const __m512 halves = _mm512_add_ps(v, _mm512_shuffle_f32x4(v, v, 0x4e));
    return horizontal_sum(_mm512_castps512_ps256(halves));
}

// A vector loaded into a register of its own: GCC otherwise folds the load into each row's
// instruction, reading it from L1 once per row. The empty asm claims to change the register.
[[gnu::always_inline]] inline __m512i own_register(__m512i value) {
    asm("" : "+v"(value));
    return value;
}

}  // namespace
}  // namespace hearth::kernels
