// AVX2 + FMA + F16C dot products (this file alone is compiled with those instructions; it runs
// only after best_isa() confirmed the CPU has them). Integer products use maddubs on
// (unsigned, signed) byte pairs, as llama.cpp's x86 kernels do.
#include <immintrin.h>

#include <cstring>

#include "kernels/activation_blocks.h"
#include "kernels/dot_variants.h"
#include "kernels/half.h"
#include "kernels/quant_blocks.h"
#include "kernels/simd_helpers.h"

namespace hearth::kernels::avx2 {
namespace {

// Eight int32 sums of products of signed bytes (x, y): |x| times y with x's sign moved onto y.
__m256i signed_dot(__m256i x, __m256i y) {
    const __m256i products = _mm256_maddubs_epi16(_mm256_sign_epi8(x, x), _mm256_sign_epi8(y, x));
    return _mm256_madd_epi16(products, _mm256_set1_epi16(1));
}

// Unsigned bytes times signed bytes, summed in pairs, then weighted per 16-bit lane.
__m256i weighted_dot(__m256i unsigned_x, __m256i signed_y, __m256i weights) {
    return _mm256_madd_epi16(_mm256_maddubs_epi16(unsigned_x, signed_y), weights);
}

// One f16 scale through F16C: the scalar conversion's subnormal handling costs more than the
// block's whole integer dot product.
inline float half(uint16_t bits) {
    return _cvtsh_ss(bits);
}

// Unsigned bytes times signed bytes, all summed into eight int32 lanes.
__m256i unsigned_dot(__m256i unsigned_x, __m256i signed_y) {
    return _mm256_madd_epi16(_mm256_maddubs_epi16(unsigned_x, signed_y), _mm256_set1_epi16(1));
}

// The 32 low nibbles of a *_0/*_1 block in element order (low nibbles 0..15, high 16..31).
__m256i nibbles(const uint8_t* quants) {
    const __m128i packed = _mm_loadu_si128(reinterpret_cast<const __m128i*>(quants));
    return _mm256_and_si256(_mm256_set_m128i(_mm_srli_epi16(packed, 4), packed),
                            _mm256_set1_epi8(0x0f));
}

// 0x10 in byte i where bit i of the 32-bit word is set: the fifth bits of Q5_0/Q5_1.
__m256i fifth_bits(const uint8_t* bytes) {
    uint32_t word;
    std::memcpy(&word, bytes, 4);
    const __m256i spread =
        _mm256_shuffle_epi8(_mm256_set1_epi32(static_cast<int>(word)),
                            _mm256_set_epi64x(0x0303030303030303, 0x0202020202020202,
                                              0x0101010101010101, 0x0000000000000000));
    const __m256i set = _mm256_cmpeq_epi8(
        _mm256_or_si256(spread, _mm256_set1_epi64x(0x7fbfdfeff7fbfdfe)), _mm256_set1_epi64x(-1));
    return _mm256_and_si256(set, _mm256_set1_epi8(0x10));
}

// A Q4_K/Q5_K super-block's eight 6-bit scales as 16-bit lanes (the same eight in both 128-bit
// halves), and what its minimums subtract from the dot product (they multiply the activation
// sums, not the quants).
struct KScales {
    __m256i scales;
    float offset;
};

template <typename Block>
KScales unpack_k_scales(const Block& block, const BlockQ8K& y) {
    const __m128i bytes = k_scale_bytes(block.scales);
    const __m128i scales = _mm_cvtepu8_epi16(bytes);
    const __m128i minimums = _mm_cvtepu8_epi16(_mm_srli_si128(bytes, 8));
    // Activation sums per 32: adjacent pairs of the per-16 sums.
    const __m128i sums =
        _mm_hadd_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(y.sums)),
                       _mm_loadu_si128(reinterpret_cast<const __m128i*>(y.sums + 8)));
    __m128i products = _mm_madd_epi16(minimums, sums);
    products = _mm_add_epi32(products, _mm_shuffle_epi32(products, 0x4e));
    products = _mm_add_epi32(products, _mm_shuffle_epi32(products, 0xb1));
    return {_mm256_broadcastsi128_si256(scales),
            half(block.minimum) * y.scale * static_cast<float>(_mm_cvtsi128_si32(products))};
}

// Sub-block j's scale (from unpack_k_scales) in every 16-bit lane.
__m256i scale_of(__m256i scales, int j) {
    return _mm256_shuffle_epi8(scales,
                               _mm256_set1_epi16(static_cast<int16_t>(0x0100 + 0x0202 * j)));
}

// From eight 16-bit scales (the same eight in both 128-bit halves): scale 2k in the low half's
// lanes and scale 2k + 1 in the high half's, the weights of a maddubs over a run of 32 bytes
// whose halves are consecutive sub-blocks of 16.
__m256i sub_block_pair(__m256i scales, int k) {
    return _mm256_shuffle_epi8(
        scales,
        _mm256_set_m128i(_mm_set1_epi16(static_cast<int16_t>(((4 * k + 3) << 8) | (4 * k + 2))),
                         _mm_set1_epi16(static_cast<int16_t>(((4 * k + 1) << 8) | (4 * k)))));
}

// Sixteen byte scales, widened to 16 bits: those of half `half` (0 or 1) in both 128-bit halves.
__m256i half_scales(__m128i bytes, int half, bool is_signed) {
    const __m128i eight = half == 0 ? bytes : _mm_srli_si128(bytes, 8);
    return _mm256_broadcastsi128_si256(is_signed ? _mm_cvtepi8_epi16(eight)
                                                 : _mm_cvtepu8_epi16(eight));
}

// A Q3_K super-block's sixteen 6-bit scales, 32 already subtracted: the low four bits of scales
// 0-7 are the low nibbles of bytes 0-7 and of scales 8-15 the high ones; the top two bits of
// scale i are bits 2 * (i / 4) and up of byte 8 + i % 4.
__m128i q3_k_scales(const uint8_t* packed) {
    uint32_t words[3];
    std::memcpy(words, packed, sizeof words);
    constexpr uint32_t kLow4 = 0x0f0f0f0f, kTop2 = 0x03030303;
    const auto scales = [&](uint32_t low, int high_shift) {
        return static_cast<int>(low | (((words[2] >> high_shift) & kTop2) << 4));
    };
    const __m128i unsigned_scales =
        _mm_set_epi32(scales((words[1] >> 4) & kLow4, 6), scales((words[0] >> 4) & kLow4, 4),
                      scales(words[1] & kLow4, 2), scales(words[0] & kLow4, 0));
    return _mm_sub_epi8(unsigned_scales, _mm_set1_epi8(32));
}

// A Q2_K/Q3_K super-block's sum of scale * value * activation: run k (0-3) of half `part` (0-1)
// holds the two bits at shift 2k of that half's 32 quant bytes, with what `extra(part, k)` ORs
// in (Q3_K's high bits); the two 16s of a run are consecutive sub-blocks, each with its scale.
template <typename Extra>
__m256i two_bit_sum(const uint8_t* quants, __m128i scales, bool signed_scales, const int8_t* q8,
                    Extra extra) {
    const __m256i two_bits = _mm256_set1_epi8(3);
    __m256i sum = _mm256_setzero_si256();
    for (int part = 0; part < 2; ++part) {
        const __m256i weights = half_scales(scales, part, signed_scales);
        const __m256i packed = load(quants + 32 * part);
#pragma GCC unroll 4
        for (int k = 0; k < 4; ++k) {
            const __m256i values = _mm256_or_si256(
                _mm256_and_si256(_mm256_srli_epi16(packed, 2 * k), two_bits), extra(part, k));
            const __m256i products = _mm256_maddubs_epi16(values, load(q8 + 128 * part + 32 * k));
            sum = _mm256_add_epi32(sum, _mm256_madd_epi16(products, sub_block_pair(weights, k)));
        }
    }
    return sum;
}

// The IQ4 grid in both 128-bit halves, for byte shuffles that look indices up.
__m256i iq4_table() {
    return _mm256_broadcastsi128_si256(
        _mm_loadu_si128(reinterpret_cast<const __m128i*>(kIq4Values)));
}

}  // namespace

float dot_f32(const void* w, const void* a, size_t n) {
    const auto* x = static_cast<const float*>(w);
    const auto* y = static_cast<const float*>(a);
    __m256 acc0 = _mm256_setzero_ps(), acc1 = _mm256_setzero_ps();
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        acc0 = _mm256_fmadd_ps(_mm256_loadu_ps(x + i), _mm256_loadu_ps(y + i), acc0);
        acc1 = _mm256_fmadd_ps(_mm256_loadu_ps(x + i + 8), _mm256_loadu_ps(y + i + 8), acc1);
    }
    float sum = horizontal_sum(_mm256_add_ps(acc0, acc1));
    for (; i < n; ++i) sum += x[i] * y[i];
    return sum;
}

float dot_f16(const void* w, const void* a, size_t n) {
    const auto* x = static_cast<const uint16_t*>(w);
    const auto* y = static_cast<const float*>(a);
    __m256 acc0 = _mm256_setzero_ps(), acc1 = _mm256_setzero_ps();
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        const __m256 w0 = _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(x + i)));
        const __m256 w1 =
            _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(x + i + 8)));
        acc0 = _mm256_fmadd_ps(w0, _mm256_loadu_ps(y + i), acc0);
        acc1 = _mm256_fmadd_ps(w1, _mm256_loadu_ps(y + i + 8), acc1);
    }
    float sum = horizontal_sum(_mm256_add_ps(acc0, acc1));
    for (; i < n; ++i) sum += half_to_float(x[i]) * y[i];
    return sum;
}

void add_scaled_f16(float scale, const uint16_t* v, float* out, size_t n) {
    const __m256 factor = _mm256_set1_ps(scale);
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const __m256 values =
            _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(v + i)));
        _mm256_storeu_ps(out + i, _mm256_fmadd_ps(factor, values, _mm256_loadu_ps(out + i)));
    }
    for (; i < n; ++i) out[i] += scale * half_to_float(v[i]);
}

float dot_bf16(const void* w, const void* a, size_t n) {
    const auto* x = static_cast<const uint16_t*>(w);
    const auto* y = static_cast<const float*>(a);
    __m256 acc = _mm256_setzero_ps();
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const __m256i wide =
            _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(x + i)));
        acc = _mm256_fmadd_ps(_mm256_castsi256_ps(_mm256_slli_epi32(wide, 16)),
                              _mm256_loadu_ps(y + i), acc);
    }
    float sum = horizontal_sum(acc);
    for (; i < n; ++i) sum += bfloat16_to_float(x[i]) * y[i];
    return sum;
}

float dot_q4_1(const void* w, const void* a, size_t n) {
    const auto* x = static_cast<const BlockQ4_1*>(w);
    const auto* y = static_cast<const BlockQ8*>(a);
    __m256 acc = _mm256_setzero_ps();
    float offsets = 0.0f;
    for (size_t b = 0; b < n / 32; ++b) {
        const __m256i dot = unsigned_dot(nibbles(x[b].quants), load(y[b].quants));
        acc = _mm256_fmadd_ps(_mm256_set1_ps(half(x[b].scale) * y[b].scale),
                              _mm256_cvtepi32_ps(dot), acc);
        offsets += half(x[b].minimum) * y[b].scaled_sum;
    }
    return horizontal_sum(acc) + offsets;
}

float dot_q5_0(const void* w, const void* a, size_t n) {
    const auto* x = static_cast<const BlockQ5_0*>(w);
    const auto* y = static_cast<const BlockQ8*>(a);
    __m256 acc = _mm256_setzero_ps();
    for (size_t b = 0; b < n / 32; ++b) {
        const __m256i values =
            _mm256_sub_epi8(_mm256_or_si256(nibbles(x[b].quants), fifth_bits(x[b].high_bits)),
                            _mm256_set1_epi8(16));
        const __m256i dot = signed_dot(values, load(y[b].quants));
        acc = _mm256_fmadd_ps(_mm256_set1_ps(half(x[b].scale) * y[b].scale),
                              _mm256_cvtepi32_ps(dot), acc);
    }
    return horizontal_sum(acc);
}

float dot_q5_1(const void* w, const void* a, size_t n) {
    const auto* x = static_cast<const BlockQ5_1*>(w);
    const auto* y = static_cast<const BlockQ8*>(a);
    __m256 acc = _mm256_setzero_ps();
    float offsets = 0.0f;
    for (size_t b = 0; b < n / 32; ++b) {
        const __m256i values = _mm256_or_si256(nibbles(x[b].quants), fifth_bits(x[b].high_bits));
        const __m256i dot = unsigned_dot(values, load(y[b].quants));
        acc = _mm256_fmadd_ps(_mm256_set1_ps(half(x[b].scale) * y[b].scale),
                              _mm256_cvtepi32_ps(dot), acc);
        offsets += half(x[b].minimum) * y[b].scaled_sum;
    }
    return horizontal_sum(acc) + offsets;
}

float dot_q8_0(const void* w, const void* a, size_t n) {
    const auto* x = static_cast<const BlockQ8_0*>(w);
    const auto* y = static_cast<const BlockQ8*>(a);
    const size_t blocks = n / 32;
    __m256 acc0 = _mm256_setzero_ps(), acc1 = _mm256_setzero_ps();
    size_t b = 0;
    for (; b + 2 <= blocks; b += 2) {
        const __m256i dot0 = signed_dot(load(x[b].quants), load(y[b].quants));
        const __m256i dot1 = signed_dot(load(x[b + 1].quants), load(y[b + 1].quants));
        acc0 = _mm256_fmadd_ps(_mm256_set1_ps(half(x[b].scale) * y[b].scale),
                               _mm256_cvtepi32_ps(dot0), acc0);
        acc1 = _mm256_fmadd_ps(_mm256_set1_ps(half(x[b + 1].scale) * y[b + 1].scale),
                               _mm256_cvtepi32_ps(dot1), acc1);
    }
    for (; b < blocks; ++b) {
        const __m256i dot = signed_dot(load(x[b].quants), load(y[b].quants));
        acc0 = _mm256_fmadd_ps(_mm256_set1_ps(half(x[b].scale) * y[b].scale),
                               _mm256_cvtepi32_ps(dot), acc0);
    }
    return horizontal_sum(_mm256_add_ps(acc0, acc1));
}

// Unsigned nibbles times signed activations, the -8 folded in afterwards through the
// activation sums; two blocks per step into independent accumulators, so the loop is not one
// long chain of dependent multiply-adds.
float dot_q4_0(const void* w, const void* a, size_t n) {
    const auto* x = static_cast<const BlockQ4_0*>(w);
    const auto* y = static_cast<const BlockQ8*>(a);
    const size_t blocks = n / 32;
    __m256 acc0 = _mm256_setzero_ps(), acc1 = _mm256_setzero_ps();
    float offsets = 0.0f;
    size_t b = 0;
    for (; b + 2 <= blocks; b += 2) {
        const float d0 = half(x[b].scale), d1 = half(x[b + 1].scale);
        const __m256i dot0 = unsigned_dot(nibbles(x[b].quants), load(y[b].quants));
        const __m256i dot1 = unsigned_dot(nibbles(x[b + 1].quants), load(y[b + 1].quants));
        acc0 = _mm256_fmadd_ps(_mm256_set1_ps(d0 * y[b].scale), _mm256_cvtepi32_ps(dot0), acc0);
        acc1 = _mm256_fmadd_ps(_mm256_set1_ps(d1 * y[b + 1].scale), _mm256_cvtepi32_ps(dot1), acc1);
        offsets += d0 * y[b].scaled_sum + d1 * y[b + 1].scaled_sum;
    }
    for (; b < blocks; ++b) {
        const float d = half(x[b].scale);
        const __m256i dot = unsigned_dot(nibbles(x[b].quants), load(y[b].quants));
        acc0 = _mm256_fmadd_ps(_mm256_set1_ps(d * y[b].scale), _mm256_cvtepi32_ps(dot), acc0);
        offsets += d * y[b].scaled_sum;
    }
    return horizontal_sum(_mm256_add_ps(acc0, acc1)) - 8.0f * offsets;
}

float dot_q4_k(const void* w, const void* a, size_t n) {
    const auto* x = static_cast<const BlockQ4_K*>(w);
    const auto* y = static_cast<const BlockQ8K*>(a);
    const __m256i low_mask = _mm256_set1_epi8(0x0f);
    __m256 acc = _mm256_setzero_ps();
    float offsets = 0.0f;
    for (size_t b = 0; b < n / 256; ++b) {
        const KScales scales = unpack_k_scales(x[b], y[b]);
        offsets += scales.offset;
        __m256i sum = _mm256_setzero_si256();
#pragma GCC unroll 4
        for (int group = 0; group < 4; ++group) {
            const __m256i packed = load(x[b].quants + 32 * group);
            const __m256i low = _mm256_and_si256(packed, low_mask);
            const __m256i high = _mm256_and_si256(_mm256_srli_epi16(packed, 4), low_mask);
            sum = _mm256_add_epi32(sum, weighted_dot(low, load(y[b].quants + 64 * group),
                                                     scale_of(scales.scales, 2 * group)));
            sum = _mm256_add_epi32(sum, weighted_dot(high, load(y[b].quants + 64 * group + 32),
                                                     scale_of(scales.scales, 2 * group + 1)));
        }
        acc = _mm256_fmadd_ps(_mm256_set1_ps(half(x[b].scale) * y[b].scale),
                              _mm256_cvtepi32_ps(sum), acc);
    }
    return horizontal_sum(acc) - offsets;
}

float dot_q5_k(const void* w, const void* a, size_t n) {
    const auto* x = static_cast<const BlockQ5_K*>(w);
    const auto* y = static_cast<const BlockQ8K*>(a);
    const __m256i low_mask = _mm256_set1_epi8(0x0f);
    const __m256i one = _mm256_set1_epi8(1);
    __m256 acc = _mm256_setzero_ps();
    float offsets = 0.0f;
    for (size_t b = 0; b < n / 256; ++b) {
        const KScales scales = unpack_k_scales(x[b], y[b]);
        offsets += scales.offset;
        const __m256i high = load(x[b].high_bits);
        __m256i sum = _mm256_setzero_si256();
#pragma GCC unroll 4
        for (int group = 0; group < 4; ++group) {
            const __m256i packed = load(x[b].quants + 32 * group);
            // Sub-block 2g takes bit 2g of each high byte as its fifth bit, sub-block 2g+1 bit
            // 2g+1.
            const __m256i low_fifth =
                _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(high, 2 * group), one), 4);
            const __m256i high_fifth =
                _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(high, 2 * group + 1), one), 4);
            const __m256i low = _mm256_or_si256(_mm256_and_si256(packed, low_mask), low_fifth);
            const __m256i upper = _mm256_or_si256(
                _mm256_and_si256(_mm256_srli_epi16(packed, 4), low_mask), high_fifth);
            sum = _mm256_add_epi32(sum, weighted_dot(low, load(y[b].quants + 64 * group),
                                                     scale_of(scales.scales, 2 * group)));
            sum = _mm256_add_epi32(sum, weighted_dot(upper, load(y[b].quants + 64 * group + 32),
                                                     scale_of(scales.scales, 2 * group + 1)));
        }
        acc = _mm256_fmadd_ps(_mm256_set1_ps(half(x[b].scale) * y[b].scale),
                              _mm256_cvtepi32_ps(sum), acc);
    }
    return horizontal_sum(acc) - offsets;
}

// The values' offset of 32 comes back out once per super-block through the activation sums per
// 16 (the sub-block size), so each run of 32 costs one maddubs rather than two.
float dot_q6_k(const void* w, const void* a, size_t n) {
    const auto* x = static_cast<const BlockQ6_K*>(w);
    const auto* y = static_cast<const BlockQ8K*>(a);
    const __m256i low_mask = _mm256_set1_epi8(0x0f);
    const __m256i two_bits = _mm256_set1_epi8(0x03);
    __m256 acc = _mm256_setzero_ps();
    for (size_t b = 0; b < n / 256; ++b) {
        const __m256i offsets = _mm256_madd_epi16(
            _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(x[b].scales))),
            load(y[b].sums));
        __m256i sum = _mm256_sub_epi32(_mm256_setzero_si256(), _mm256_slli_epi32(offsets, 5));
        for (int half = 0; half < 2; ++half) {
            const uint8_t* low = x[b].low_bits + 64 * half;
            const __m256i high = load(x[b].high_bits + 32 * half);
            const __m256i scales = half_scales(
                _mm_loadu_si128(reinterpret_cast<const __m128i*>(x[b].scales)), half, true);
            const __m256i low0 = load(low), low1 = load(low + 32);
            // Four runs of 32 six-bit values (0..63), in element order within this half.
            const __m256i values[4] = {
                _mm256_or_si256(_mm256_and_si256(low0, low_mask),
                                _mm256_slli_epi16(_mm256_and_si256(high, two_bits), 4)),
                _mm256_or_si256(
                    _mm256_and_si256(low1, low_mask),
                    _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(high, 2), two_bits), 4)),
                _mm256_or_si256(
                    _mm256_and_si256(_mm256_srli_epi16(low0, 4), low_mask),
                    _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(high, 4), two_bits), 4)),
                _mm256_or_si256(
                    _mm256_and_si256(_mm256_srli_epi16(low1, 4), low_mask),
                    _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(high, 6), two_bits), 4)),
            };
#pragma GCC unroll 4
            for (int k = 0; k < 4; ++k) {
                const __m256i q8 = load(y[b].quants + 128 * half + 32 * k);
                // Each 16-element half of the run has its own scale.
                sum = _mm256_add_epi32(sum, _mm256_madd_epi16(_mm256_maddubs_epi16(values[k], q8),
                                                              sub_block_pair(scales, k)));
            }
        }
        acc = _mm256_fmadd_ps(_mm256_set1_ps(half(x[b].scale) * y[b].scale),
                              _mm256_cvtepi32_ps(sum), acc);
    }
    return horizontal_sum(acc);
}

// Q2_K: the minimums multiply the activation sums per 16, apart from the quants' products.
float dot_q2_k(const void* w, const void* a, size_t n) {
    const auto* x = static_cast<const BlockQ2_K*>(w);
    const auto* y = static_cast<const BlockQ8K*>(a);
    const __m128i low_mask = _mm_set1_epi8(0x0f);
    __m256 acc = _mm256_setzero_ps(), offsets = _mm256_setzero_ps();
    for (size_t b = 0; b < n / 256; ++b) {
        const __m128i packed = _mm_loadu_si128(reinterpret_cast<const __m128i*>(x[b].scales));
        const __m128i minimums = _mm_and_si128(_mm_srli_epi16(packed, 4), low_mask);
        const __m256i minimum_dot =
            _mm256_madd_epi16(_mm256_cvtepu8_epi16(minimums), load(y[b].sums));
        offsets = _mm256_fmadd_ps(_mm256_set1_ps(half(x[b].minimum) * y[b].scale),
                                  _mm256_cvtepi32_ps(minimum_dot), offsets);
        const __m256i sum =
            two_bit_sum(x[b].quants, _mm_and_si128(packed, low_mask), false, y[b].quants,
                        [](int, int) { return _mm256_setzero_si256(); });
        acc = _mm256_fmadd_ps(_mm256_set1_ps(half(x[b].scale) * y[b].scale),
                              _mm256_cvtepi32_ps(sum), acc);
    }
    return horizontal_sum(acc) - horizontal_sum(offsets);
}

// Q3_K: the quants read as unsigned 0..7 (two low bits plus 4 for a set high bit); the 4 every
// value is below that comes back out through the activation sums per 16, as Q6_K's 32 does.
float dot_q3_k(const void* w, const void* a, size_t n) {
    const auto* x = static_cast<const BlockQ3_K*>(w);
    const auto* y = static_cast<const BlockQ8K*>(a);
    const __m256i one = _mm256_set1_epi8(1);
    __m256 acc = _mm256_setzero_ps();
    for (size_t b = 0; b < n / 256; ++b) {
        const __m128i scales = q3_k_scales(x[b].scales);
        const __m256i offsets = _mm256_madd_epi16(_mm256_cvtepi8_epi16(scales), load(y[b].sums));
        const __m256i high = load(x[b].high_bits);
        const __m256i sum =
            two_bit_sum(x[b].quants, scales, true, y[b].quants, [&](int part, int k) {
                return _mm256_slli_epi16(
                    _mm256_and_si256(_mm256_srli_epi16(high, 4 * part + k), one), 2);
            });
        acc = _mm256_fmadd_ps(
            _mm256_set1_ps(half(x[b].scale) * y[b].scale),
            _mm256_cvtepi32_ps(_mm256_sub_epi32(sum, _mm256_slli_epi32(offsets, 2))), acc);
    }
    return horizontal_sum(acc);
}

// IQ4_NL: the nibbles index the grid through a byte shuffle; two blocks per step into
// independent accumulators.
float dot_iq4_nl(const void* w, const void* a, size_t n) {
    const auto* x = static_cast<const BlockIQ4_NL*>(w);
    const auto* y = static_cast<const BlockQ8*>(a);
    const __m256i table = iq4_table();
    const size_t blocks = n / 32;
    __m256 acc[2] = {_mm256_setzero_ps(), _mm256_setzero_ps()};
    for (size_t b = 0; b < blocks; ++b) {
        const __m256i values = _mm256_shuffle_epi8(table, nibbles(x[b].quants));
        const __m256i dot = signed_dot(values, load(y[b].quants));
        acc[b % 2] = _mm256_fmadd_ps(_mm256_set1_ps(half(x[b].scale) * y[b].scale),
                                     _mm256_cvtepi32_ps(dot), acc[b % 2]);
    }
    return horizontal_sum(_mm256_add_ps(acc[0], acc[1]));
}

// IQ4_XS: IQ4_NL's lookup per sub-block of 32, the pairs of products weighted by its scale.
float dot_iq4_xs(const void* w, const void* a, size_t n) {
    const auto* x = static_cast<const BlockIQ4_XS*>(w);
    const auto* y = static_cast<const BlockQ8K*>(a);
    const __m256i table = iq4_table();
    __m256 acc = _mm256_setzero_ps();
    for (size_t b = 0; b < n / 256; ++b) {
        __m256i sum = _mm256_setzero_si256();
#pragma GCC unroll 8
        for (int sub = 0; sub < 8; ++sub) {
            const __m256i values = _mm256_shuffle_epi8(table, nibbles(x[b].quants + 16 * sub));
            const __m256i q8 = load(y[b].quants + 32 * sub);
            const __m256i products = _mm256_maddubs_epi16(_mm256_sign_epi8(values, values),
                                                          _mm256_sign_epi8(q8, values));
            const auto scale = static_cast<int16_t>(unpack_scale_iq4_xs(sub, x[b]));
            sum = _mm256_add_epi32(sum, _mm256_madd_epi16(products, _mm256_set1_epi16(scale)));
        }
        acc = _mm256_fmadd_ps(_mm256_set1_ps(half(x[b].scale) * y[b].scale),
                              _mm256_cvtepi32_ps(sum), acc);
    }
    return horizontal_sum(acc);
}

}  // namespace hearth::kernels::avx2
