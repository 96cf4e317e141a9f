// Small AVX-512 helpers shared by the AVX-512 kernel files (and only those: each includes this
// in an unnamed namespace, as simd_helpers.h, so no AVX-512 code is merged into other files).
#pragma once

#include <immintrin.h>

#include <array>
#include <cstdint>

#include "kernels/simd_helpers.h"

namespace hearth::kernels {
namespace {

// The sum of a vector's 16 lanes in a fixed tree (the scalar twins follow it): lane i plus
// lane i + 8, then simd_helpers' horizontal_sum of those eight.
inline float sum_of(__m512 v) {
    const __m512 halves = _mm512_add_ps(v, _mm512_shuffle_f32x4(v, v, 0x4e));
    return horizontal_sum(_mm512_castps512_ps256(halves));
}

// A 4-bit grid's values plus `bias` (so that they are unsigned, as vpdpbusd wants them), as a
// vpermb table for bytes whose low nibble indexes the grid. The 64-byte table repeats the grid
// four times: vpermb reads six index bits, and the two above the nibble (from the byte's other
// nibble) then change nothing, so no mask is needed.
constexpr std::array<uint8_t, 64> biased_grid(const int8_t (&grid)[16], int bias) {
    std::array<uint8_t, 64> table{};
    for (int i = 0; i < 64; ++i) table[i] = static_cast<uint8_t>(grid[i % 16] + bias);
    return table;
}

// The GF(2) affine byte transform's matrix (gf2p8affine) that moves one bit of each byte to bit
// `to` and clears the rest: bit `low` in the low 256 bits, bit `high` in the high 256 bits (each
// 64-bit lane has its own matrix). Result bit i is the parity of the source byte AND'ed with
// matrix byte 7 - i, so the bit to keep goes in byte 7 - to. Q3_K's kernels place their values'
// high bits at bit 2 with it, Q5_K's its fifth bits at bit 4.
inline __m512i move_bit(int low, int high, int to) {
    const auto matrix = [to](int bit) {
        return static_cast<long long>(uint64_t{1} << (bit + 8 * (7 - to)));
    };
    return _mm512_set_epi64(matrix(high), matrix(high), matrix(high), matrix(high), matrix(low),
                            matrix(low), matrix(low), matrix(low));
}

// A vector loaded into a register of its own: GCC otherwise folds the load into each row's
// instruction, reading it from L1 once per row. The empty asm claims to change the register.
[[gnu::always_inline]] inline __m512i own_register(__m512i value) {
    asm("" : "+v"(value));
    return value;
}

// simd_helpers' exp in sixteen lanes: the same operations in each lane, so the same bits.
inline __m512 exp(__m512 x) {
    x = _mm512_min_ps(_mm512_max_ps(x, _mm512_set1_ps(-87.0f)), _mm512_set1_ps(88.0f));
    const __m512 n = _mm512_roundscale_ps(_mm512_mul_ps(x, _mm512_set1_ps(1.44269504f)),
                                          _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m512 r = _mm512_fnmadd_ps(n, _mm512_set1_ps(0.693359375f), x);
    r = _mm512_fnmadd_ps(n, _mm512_set1_ps(-2.12194440e-4f), r);
    __m512 p = _mm512_set1_ps(1.0f / 720);
    for (const float c : {1.0f / 120, 1.0f / 24, 1.0f / 6, 0.5f, 1.0f, 1.0f}) {
        p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(c));
    }
    const __m512i exponent =
        _mm512_slli_epi32(_mm512_add_epi32(_mm512_cvtps_epi32(n), _mm512_set1_epi32(127)), 23);
    return _mm512_mul_ps(p, _mm512_castsi512_ps(exponent));
}

// simd_helpers' EightFloats sixteen lanes wide.
struct SixteenFloats {
    using Vector = __m512;
    static constexpr size_t kLanes = 16;
    static Vector load(const float* from) { return _mm512_loadu_ps(from); }
    static void store(float* to, Vector v) { _mm512_storeu_ps(to, v); }
    static Vector splat(float x) { return _mm512_set1_ps(x); }
    static Vector add(Vector a, Vector b) { return _mm512_add_ps(a, b); }
    static Vector subtract(Vector a, Vector b) { return _mm512_sub_ps(a, b); }
    static Vector multiply(Vector a, Vector b) { return _mm512_mul_ps(a, b); }
    static Vector divide(Vector a, Vector b) { return _mm512_div_ps(a, b); }
    static Vector minimum(Vector a, Vector b) { return _mm512_min_ps(a, b); }
    static Vector maximum(Vector a, Vector b) { return _mm512_max_ps(a, b); }
    static Vector multiply_add(Vector a, Vector b, Vector c) { return _mm512_fmadd_ps(a, b, c); }
    static Vector exp(Vector x) { return kernels::exp(x); }
    static void own_register(Vector& v) { asm("" : "+v"(v)); }
};

}  // namespace
}  // namespace hearth::kernels
