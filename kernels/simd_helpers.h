// Small AVX2 helpers shared by the SIMD kernel files. Each file that includes this gets its own
// copies (an unnamed namespace): those files are compiled for different instruction sets, and
// one shared inline definition could be merged by the linker into the widest file's version.
#pragma once

#include <immintrin.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>

namespace hearth::kernels {
namespace {

inline __m256i load(const void* p) {
    return _mm256_loadu_si256(static_cast<const __m256i*>(p));
}

inline float horizontal_sum(__m256 v) {
    const __m128 sum = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    const __m128 pairs = _mm_add_ps(sum, _mm_movehl_ps(sum, sum));
    return _mm_cvtss_f32(_mm_add_ss(pairs, _mm_movehdup_ps(pairs)));
}

// Decode reads each weight once, and one core's hardware prefetcher alone left the super-block
// dots waiting on memory (Q4_K from DRAM on one core: 11.3 ns a super-block without, 10.5 with):
// the lines of the block 2 KiB ahead are asked for while this one is multiplied. Past a row's
// end they are the next row's, which the same thread reads next.
[[gnu::always_inline]] inline void prefetch_bytes_ahead(const void* at, size_t bytes) {
    constexpr size_t kDistance = 2048;
    const char* ahead = static_cast<const char*>(at) + kDistance;
    for (size_t line = 0; line < bytes; line += 64) _mm_prefetch(ahead + line, _MM_HINT_T0);
}
template <typename Block>
[[gnu::always_inline]] inline void prefetch_ahead(const Block* block) {
    prefetch_bytes_ahead(block, sizeof(Block));
}

// A Q3_K super-block's sixteen 6-bit scales, 32 already subtracted: the low four bits of scales
// 0-7 are the low nibbles of bytes 0-7 and of scales 8-15 the high ones; the top two bits of
// scale i are bits 2 * (i / 4) and up of byte 8 + i % 4.
inline __m128i q3_k_scales(const uint8_t* packed) {
    // In vector operations: unpacked in scalar registers and inserted, they were a third of the
    // instructions of the AVX-512 Q3_K dot that used this before it gathered bit fields instead
    // (dot_vnni.cpp); the AVX2 dot still does. Bits 2j..2j+1 of byte 8 + m are the top of scale
    // 4j + m, so the dword of bytes 8-11 shifted by 0, 2, 4 and 6 lines them up.
    uint32_t top;
    std::memcpy(&top, packed + 8, sizeof top);
    const __m128i bytes = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(packed));
    const __m128i nibble = _mm_set1_epi8(0x0f);
    const __m128i low = _mm_unpacklo_epi64(_mm_and_si128(bytes, nibble),
                                           _mm_and_si128(_mm_srli_epi16(bytes, 4), nibble));
    const __m128i tops = _mm_and_si128(
        _mm_srlv_epi32(_mm_set1_epi32(static_cast<int>(top)), _mm_setr_epi32(0, 2, 4, 6)),
        _mm_set1_epi8(0x03));
    return _mm_sub_epi8(_mm_or_si128(low, _mm_slli_epi16(tops, 4)), _mm_set1_epi8(32));
}

// e^x to about one ulp for x in [-87, 88]: 2^n times a degree-6 polynomial of the remainder.
inline __m256 exp(__m256 x) {
    x = _mm256_min_ps(_mm256_max_ps(x, _mm256_set1_ps(-87.0f)), _mm256_set1_ps(88.0f));
    const __m256 n = _mm256_round_ps(_mm256_mul_ps(x, _mm256_set1_ps(1.44269504f)),
                                     _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m256 r = _mm256_fnmadd_ps(n, _mm256_set1_ps(0.693359375f), x);
    r = _mm256_fnmadd_ps(n, _mm256_set1_ps(-2.12194440e-4f), r);
    __m256 p = _mm256_set1_ps(1.0f / 720);
    for (const float c : {1.0f / 120, 1.0f / 24, 1.0f / 6, 0.5f, 1.0f, 1.0f}) {
        p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(c));
    }
    const __m256i exponent =
        _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127)), 23);
    return _mm256_mul_ps(p, _mm256_castsi256_ps(exponent));
}

// Float operations eight lanes wide, for kernels written once over a lane width (attention,
// the gates); avx512_helpers.h has the sixteen-lane twin. Every lane does the same arithmetic
// either way, so both widths give the same bits.
struct EightFloats {
    using Vector = __m256;
    static constexpr size_t kLanes = 8;
    static Vector load(const float* from) { return _mm256_loadu_ps(from); }
    static void store(float* to, Vector v) { _mm256_storeu_ps(to, v); }
    static Vector splat(float x) { return _mm256_set1_ps(x); }
    static Vector add(Vector a, Vector b) { return _mm256_add_ps(a, b); }
    static Vector subtract(Vector a, Vector b) { return _mm256_sub_ps(a, b); }
    static Vector multiply(Vector a, Vector b) { return _mm256_mul_ps(a, b); }
    static Vector divide(Vector a, Vector b) { return _mm256_div_ps(a, b); }
    // min and max return their second operand where either is NaN.
    static Vector minimum(Vector a, Vector b) { return _mm256_min_ps(a, b); }
    static Vector maximum(Vector a, Vector b) { return _mm256_max_ps(a, b); }
    static Vector multiply_add(Vector a, Vector b, Vector c) { return _mm256_fmadd_ps(a, b, c); }
    static Vector exp(Vector x) { return kernels::exp(x); }
    // The empty asm claims to change the register, so GCC keeps the value in one.
    static void own_register(Vector& v) { asm("" : "+x"(v)); }
};

// A Q4_K/Q5_K super-block's eight 6-bit scales (bytes 0-7) and minimums (bytes 8-15), in eight
// vector operations instead of about twenty scalar ones (the Q4_K dot measured level with either):
// sub-blocks 0-3 keep six bits in bytes 0-3 (scales) and 4-7 (minimums); 4-7 take their low
// four bits from the nibbles of bytes 8-11 and their top two from the spare bits of bytes 0-7.
// Reads 16 bytes: the block's quants follow its 12 scale bytes in both formats.
inline __m128i k_scale_bytes(const uint8_t* packed) {
    const __m128i words = _mm_loadu_si128(reinterpret_cast<const __m128i*>(packed));
    // Words 0-3 of the result from words 0, 2, 1, 2 (their low bits) and words -, 0, -, 1 (top
    // bits).
    const __m128i low = _mm_srlv_epi32(_mm_shuffle_epi32(words, 0x98), _mm_setr_epi32(0, 0, 0, 4));
    const __m128i top = _mm_srli_epi32(_mm_shuffle_epi32(words, 0x40), 2);
    return _mm_or_si128(
        _mm_and_si128(low, _mm_setr_epi32(0x3f3f3f3f, 0x0f0f0f0f, 0x3f3f3f3f, 0x0f0f0f0f)),
        _mm_and_si128(top, _mm_setr_epi32(0, 0x30303030, 0, 0x30303030)));
}

}  // namespace
}  // namespace hearth::kernels
