// AVX2 + FMA + F16C dot products (this file alone is compiled with those instructions; it runs
// only after best_isa() confirmed the CPU has them). Integer products use maddubs on
// (unsigned, signed) byte pairs, as llama.cpp's x86 kernels do. Each kernel is written for a
// group of K tokens (dot_many.h): the single-token dot is the kernel with K = 1, and a group
// unpacks each block of weights once for all its tokens. IQ4_NL's and MXFP4's are in
// dot_lookup_avx2.cpp.
#include <immintrin.h>

#include <array>
#include <cstring>
#include <type_traits>

#include "kernels/activation_blocks.h"
#include "kernels/dot_helpers_avx2.h"
#include "kernels/dot_many.h"
#include "kernels/dot_variants.h"
#include "kernels/half.h"
#include "kernels/quant_blocks.h"
#include "kernels/simd_helpers.h"

namespace hearth::kernels::avx2 {
namespace {

// Unsigned bytes times signed bytes, summed in pairs, then weighted per 16-bit lane.
__m256i weighted_dot(__m256i unsigned_x, __m256i signed_y, __m256i weights) {
    return _mm256_madd_epi16(_mm256_maddubs_epi16(unsigned_x, signed_y), weights);
}

// Unsigned bytes times signed bytes, all summed into eight int32 lanes.
__m256i unsigned_dot(__m256i unsigned_x, __m256i signed_y) {
    return _mm256_madd_epi16(_mm256_maddubs_epi16(unsigned_x, signed_y), _mm256_set1_epi16(1));
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
// halves), and its minimums, which multiply the activation sums, not the quants.
struct KScales {
    __m256i scales;
    __m128i minimums;  // eight 16-bit lanes
    float minimum;     // the super-block's factor of the minimums
};

template <typename Block>
KScales unpack_k_scales(const Block& block) {
    const __m128i bytes = k_scale_bytes(block.scales);
    return {_mm256_broadcastsi128_si256(_mm_cvtepu8_epi16(bytes)),
            _mm_cvtepu8_epi16(_mm_srli_si128(bytes, 8)), half(block.minimum)};
}

// What a Q4_K/Q5_K super-block's minimums subtract from one token's dot product.
float minimum_offset(const KScales& scales, const BlockQ8K& y) {
    // Activation sums per 32: adjacent pairs of the per-16 sums.
    const __m128i sums =
        _mm_hadd_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(y.sums)),
                       _mm_loadu_si128(reinterpret_cast<const __m128i*>(y.sums + 8)));
    __m128i products = _mm_madd_epi16(scales.minimums, sums);
    products = _mm_add_epi32(products, _mm_shuffle_epi32(products, 0x4e));
    products = _mm_add_epi32(products, _mm_shuffle_epi32(products, 0xb1));
    return scales.minimum * y.scale * static_cast<float>(_mm_cvtsi128_si32(products));
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

// A Q2_K/Q3_K super-block's sum of scale * value * activation for each token (q8[t] its
// quants): run k (0-3) of half `part` (0-1) holds the two bits at shift 2k of that half's 32
// quant bytes, with what `extra(part, k)` ORs in (Q3_K's high bits); the two 16s of a run are
// consecutive sub-blocks, each with its scale.
template <int K, typename Extra>
void two_bit_sums(const uint8_t* quants, __m128i scales, bool signed_scales,
                  const std::array<const int8_t*, K>& q8, Extra extra, __m256i (&sums)[K]) {
    const __m256i two_bits = _mm256_set1_epi8(3);
    for (int t = 0; t < K; ++t) sums[t] = _mm256_setzero_si256();
    for (int part = 0; part < 2; ++part) {
        const __m256i weights = half_scales(scales, part, signed_scales);
        const __m256i packed = load(quants + 32 * part);
#pragma GCC unroll 4
        for (int k = 0; k < 4; ++k) {
            const __m256i values = _mm256_or_si256(
                _mm256_and_si256(_mm256_srli_epi16(packed, 2 * k), two_bits), extra(part, k));
            const __m256i pair = sub_block_pair(weights, k);
            for (int t = 0; t < K; ++t) {
                const __m256i products =
                    _mm256_maddubs_epi16(values, load(q8[t] + 128 * part + 32 * k));
                sums[t] = _mm256_add_epi32(sums[t], _mm256_madd_epi16(products, pair));
            }
        }
    }
}

// The kernels, each over a group of K tokens (dot_many.h).

constexpr auto f32 = []<int K>(const void* w, const TokenGroup<K>& group, size_t n) {
    const auto* x = static_cast<const float*>(w);
    const auto y = activation_rows<float>(group);
    __m256 acc0[K] = {}, acc1[K] = {};
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        const __m256 x0 = _mm256_loadu_ps(x + i), x1 = _mm256_loadu_ps(x + i + 8);
        for (int t = 0; t < K; ++t) {
            acc0[t] = _mm256_fmadd_ps(x0, _mm256_loadu_ps(y[t] + i), acc0[t]);
            acc1[t] = _mm256_fmadd_ps(x1, _mm256_loadu_ps(y[t] + i + 8), acc1[t]);
        }
    }
    for (int t = 0; t < K; ++t) {
        float sum = horizontal_sum(_mm256_add_ps(acc0[t], acc1[t]));
        for (size_t j = i; j < n; ++j) sum += x[j] * y[t][j];
        group.put(t, sum);
    }
};

constexpr auto f16 = []<int K>(const void* w, const TokenGroup<K>& group, size_t n) {
    const auto* x = static_cast<const uint16_t*>(w);
    const auto y = activation_rows<float>(group);
    __m256 acc0[K] = {}, acc1[K] = {};
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        const __m256 x0 = _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(x + i)));
        const __m256 x1 =
            _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(x + i + 8)));
        for (int t = 0; t < K; ++t) {
            acc0[t] = _mm256_fmadd_ps(x0, _mm256_loadu_ps(y[t] + i), acc0[t]);
            acc1[t] = _mm256_fmadd_ps(x1, _mm256_loadu_ps(y[t] + i + 8), acc1[t]);
        }
    }
    for (int t = 0; t < K; ++t) {
        float sum = horizontal_sum(_mm256_add_ps(acc0[t], acc1[t]));
        for (size_t j = i; j < n; ++j) sum += half_to_float(x[j]) * y[t][j];
        group.put(t, sum);
    }
};

constexpr auto bf16 = []<int K>(const void* w, const TokenGroup<K>& group, size_t n) {
    const auto* x = static_cast<const uint16_t*>(w);
    const auto y = activation_rows<float>(group);
    __m256 acc[K] = {};
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const __m256i wide =
            _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(x + i)));
        const __m256 values = _mm256_castsi256_ps(_mm256_slli_epi32(wide, 16));
        for (int t = 0; t < K; ++t) {
            acc[t] = _mm256_fmadd_ps(values, _mm256_loadu_ps(y[t] + i), acc[t]);
        }
    }
    for (int t = 0; t < K; ++t) {
        float sum = horizontal_sum(acc[t]);
        for (size_t j = i; j < n; ++j) sum += bfloat16_to_float(x[j]) * y[t][j];
        group.put(t, sum);
    }
};

// The *_1 formats: unsigned values (`values_of` a block) times the activations, plus each
// block's minimum times the activation sums.
template <typename Block, int K, typename Values>
void with_minimums(const void* w, const TokenGroup<K>& group, size_t n, Values values_of) {
    const auto* x = static_cast<const Block*>(w);
    const auto y = activation_rows<BlockQ8>(group);
    __m256 acc[K] = {};
    float offsets[K] = {};
    for (size_t b = 0; b < n / 32; ++b) {
        const __m256i values = values_of(x[b]);
        const float scale = half(x[b].scale), minimum = half(x[b].minimum);
        for (int t = 0; t < K; ++t) {
            const __m256i dot = unsigned_dot(values, load(y[t][b].quants));
            acc[t] = add_scaled<K>(acc[t], scale, y[t][b].scale, dot);
            offsets[t] += minimum * y[t][b].scaled_sum;
        }
    }
    for (int t = 0; t < K; ++t) group.put(t, horizontal_sum(acc[t]) + offsets[t]);
}

constexpr auto q4_1 = []<int K>(const void* w, const TokenGroup<K>& group, size_t n) {
    with_minimums<BlockQ4_1>(w, group, n,
                             [](const BlockQ4_1& block) { return nibbles(block.quants); });
};

constexpr auto q5_1 = []<int K>(const void* w, const TokenGroup<K>& group, size_t n) {
    with_minimums<BlockQ5_1>(w, group, n, [](const BlockQ5_1& block) {
        return _mm256_or_si256(nibbles(block.quants), fifth_bits(block.high_bits));
    });
};

constexpr auto q5_0 = []<int K>(const void* w, const TokenGroup<K>& group, size_t n) {
    const auto* x = static_cast<const BlockQ5_0*>(w);
    const auto y = activation_rows<BlockQ8>(group);
    __m256 acc[K] = {};
    for (size_t b = 0; b < n / 32; ++b) {
        const __m256i values =
            _mm256_sub_epi8(_mm256_or_si256(nibbles(x[b].quants), fifth_bits(x[b].high_bits)),
                            _mm256_set1_epi8(16));
        const float scale = half(x[b].scale);
        for (int t = 0; t < K; ++t) {
            const __m256i dot = signed_dot(values, load(y[t][b].quants));
            acc[t] = add_scaled<K>(acc[t], scale, y[t][b].scale, dot);
        }
    }
    for (int t = 0; t < K; ++t) group.put(t, horizontal_sum(acc[t]));
};

// Q8_0 and Q4_0: two blocks per step into independent accumulators, so the loop is not one long
// chain of dependent multiply-adds. Q4_0's nibbles are read unsigned, the -8 folded in afterwards
// through the activation sums.
template <typename Block, int K>
void two_blocks_per_step(const void* w, const TokenGroup<K>& group, size_t n) {
    constexpr bool kNibbles = std::is_same_v<Block, BlockQ4_0>;
    const auto values_of = [](const Block& block) {
        if constexpr (kNibbles) return nibbles(block.quants);
        return load(block.quants);
    };
    const auto dot = [](__m256i x, const BlockQ8& y) {
        if constexpr (kNibbles) return unsigned_dot(x, load(y.quants));
        return signed_dot(x, load(y.quants));
    };
    const auto* x = static_cast<const Block*>(w);
    const auto y = activation_rows<BlockQ8>(group);
    const size_t blocks = n / 32;
    __m256 acc0[K] = {}, acc1[K] = {};
    float offsets[K] = {};
    size_t b = 0;
    for (; b + 2 <= blocks; b += 2) {
        const __m256i x0 = values_of(x[b]), x1 = values_of(x[b + 1]);
        const float d0 = half(x[b].scale), d1 = half(x[b + 1].scale);
        for (int t = 0; t < K; ++t) {
            const BlockQ8* a = y[t] + b;
            const __m256i dot0 = dot(x0, a[0]), dot1 = dot(x1, a[1]);
            acc0[t] = add_scaled<K>(acc0[t], d0, a[0].scale, dot0);
            acc1[t] = add_scaled<K>(acc1[t], d1, a[1].scale, dot1);
            if constexpr (kNibbles) offsets[t] += d0 * a[0].scaled_sum + d1 * a[1].scaled_sum;
        }
    }
    for (; b < blocks; ++b) {
        const __m256i values = values_of(x[b]);
        const float d = half(x[b].scale);
        for (int t = 0; t < K; ++t) {
            acc0[t] = add_scaled<K>(acc0[t], d, y[t][b].scale, dot(values, y[t][b]));
            if constexpr (kNibbles) offsets[t] += d * y[t][b].scaled_sum;
        }
    }
    for (int t = 0; t < K; ++t) {
        float sum = horizontal_sum(_mm256_add_ps(acc0[t], acc1[t]));
        if constexpr (kNibbles) sum -= 8.0f * offsets[t];
        group.put(t, sum);
    }
}

constexpr auto q8_0 = []<int K>(const void* w, const TokenGroup<K>& group, size_t n) {
    two_blocks_per_step<BlockQ8_0>(w, group, n);
};

constexpr auto q4_0 = []<int K>(const void* w, const TokenGroup<K>& group, size_t n) {
    two_blocks_per_step<BlockQ4_0>(w, group, n);
};

// Q4_K/Q5_K: each run of 64 elements is two sub-blocks of 32, whose unsigned values
// `values(block, run)` gives; one integer sum per super-block, less the minimums' offsets.
struct SubBlockPair {
    __m256i low, high;
};

template <typename Block, int K, typename Values>
void k_quant(const void* w, const TokenGroup<K>& group, size_t n, Values values) {
    const auto* x = static_cast<const Block*>(w);
    const auto y = activation_rows<BlockQ8K>(group);
    __m256 acc[K] = {};
    float offsets[K] = {};
    for (size_t b = 0; b < n / 256; ++b) {
        const KScales scales = unpack_k_scales(x[b]);
        __m256i sums[K];
        for (int t = 0; t < K; ++t) {
            offsets[t] += minimum_offset(scales, y[t][b]);
            sums[t] = _mm256_setzero_si256();
        }
#pragma GCC unroll 4
        for (int run = 0; run < 4; ++run) {
            const SubBlockPair pair = values(x[b], run);
            const __m256i low_scale = scale_of(scales.scales, 2 * run);
            const __m256i high_scale = scale_of(scales.scales, 2 * run + 1);
            for (int t = 0; t < K; ++t) {
                const int8_t* q8 = y[t][b].quants + 64 * run;
                sums[t] = _mm256_add_epi32(sums[t], weighted_dot(pair.low, load(q8), low_scale));
                sums[t] =
                    _mm256_add_epi32(sums[t], weighted_dot(pair.high, load(q8 + 32), high_scale));
            }
        }
        const float scale = half(x[b].scale);
        for (int t = 0; t < K; ++t) {
            acc[t] = add_scaled<K>(acc[t], scale, y[t][b].scale, sums[t]);
        }
    }
    for (int t = 0; t < K; ++t) group.put(t, horizontal_sum(acc[t]) - offsets[t]);
}

constexpr auto q4_k = []<int K>(const void* w, const TokenGroup<K>& group, size_t n) {
    k_quant<BlockQ4_K>(w, group, n, [](const BlockQ4_K& block, int run) {
        const __m256i low_mask = _mm256_set1_epi8(0x0f);
        const __m256i packed = load(block.quants + 32 * run);
        return SubBlockPair{_mm256_and_si256(packed, low_mask),
                            _mm256_and_si256(_mm256_srli_epi16(packed, 4), low_mask)};
    });
};

// Sub-block 2r takes bit 2r of each high byte as its fifth bit, sub-block 2r+1 bit 2r+1.
constexpr auto q5_k = []<int K>(const void* w, const TokenGroup<K>& group, size_t n) {
    k_quant<BlockQ5_K>(w, group, n, [](const BlockQ5_K& block, int run) {
        const __m256i low_mask = _mm256_set1_epi8(0x0f);
        const __m256i one = _mm256_set1_epi8(1);
        const __m256i high = load(block.high_bits);
        const __m256i packed = load(block.quants + 32 * run);
        const __m256i low_fifth =
            _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(high, 2 * run), one), 4);
        const __m256i high_fifth =
            _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(high, 2 * run + 1), one), 4);
        return SubBlockPair{
            _mm256_or_si256(_mm256_and_si256(packed, low_mask), low_fifth),
            _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(packed, 4), low_mask), high_fifth)};
    });
};

// The values' offset of 32 comes back out once per super-block through the activation sums per
// 16 (the sub-block size), so each run of 32 costs one maddubs rather than two.
constexpr auto q6_k = []<int K>(const void* w, const TokenGroup<K>& group, size_t n) {
    const auto* x = static_cast<const BlockQ6_K*>(w);
    const auto y = activation_rows<BlockQ8K>(group);
    const __m256i low_mask = _mm256_set1_epi8(0x0f);
    const __m256i two_bits = _mm256_set1_epi8(0x03);
    __m256 acc[K] = {};
    for (size_t b = 0; b < n / 256; ++b) {
        const __m128i scale_bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(x[b].scales));
        const __m256i wide_scales = _mm256_cvtepi8_epi16(scale_bytes);
        __m256i sums[K];
        for (int t = 0; t < K; ++t) {
            const __m256i offsets = _mm256_madd_epi16(wide_scales, load(y[t][b].sums));
            sums[t] = _mm256_sub_epi32(_mm256_setzero_si256(), _mm256_slli_epi32(offsets, 5));
        }
        for (int half = 0; half < 2; ++half) {
            const uint8_t* low = x[b].low_bits + 64 * half;
            const __m256i high = load(x[b].high_bits + 32 * half);
            const __m256i scales = half_scales(scale_bytes, half, true);
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
                // Each 16-element half of the run has its own scale.
                const __m256i pair = sub_block_pair(scales, k);
                for (int t = 0; t < K; ++t) {
                    const __m256i q8 = load(y[t][b].quants + 128 * half + 32 * k);
                    sums[t] = _mm256_add_epi32(
                        sums[t], _mm256_madd_epi16(_mm256_maddubs_epi16(values[k], q8), pair));
                }
            }
        }
        const float scale = half(x[b].scale);
        for (int t = 0; t < K; ++t) {
            acc[t] = add_scaled<K>(acc[t], scale, y[t][b].scale, sums[t]);
        }
    }
    for (int t = 0; t < K; ++t) group.put(t, horizontal_sum(acc[t]));
};

// The quants of a super-block of every token in the group.
template <int K>
std::array<const int8_t*, K> super_block_quants(const std::array<const BlockQ8K*, K>& y, size_t b) {
    std::array<const int8_t*, K> quants;
    for (int t = 0; t < K; ++t) quants[t] = y[t][b].quants;
    return quants;
}

// Q2_K: the minimums multiply the activation sums per 16, apart from the quants' products.
constexpr auto q2_k = []<int K>(const void* w, const TokenGroup<K>& group, size_t n) {
    const auto* x = static_cast<const BlockQ2_K*>(w);
    const auto y = activation_rows<BlockQ8K>(group);
    const __m128i low_mask = _mm_set1_epi8(0x0f);
    __m256 acc[K] = {}, offsets[K] = {};
    for (size_t b = 0; b < n / 256; ++b) {
        const __m128i packed = _mm_loadu_si128(reinterpret_cast<const __m128i*>(x[b].scales));
        const __m256i minimums =
            _mm256_cvtepu8_epi16(_mm_and_si128(_mm_srli_epi16(packed, 4), low_mask));
        const float minimum = half(x[b].minimum), scale = half(x[b].scale);
        __m256i sums[K];
        two_bit_sums<K>(
            x[b].quants, _mm_and_si128(packed, low_mask), false, super_block_quants<K>(y, b),
            [](int, int) { return _mm256_setzero_si256(); }, sums);
        for (int t = 0; t < K; ++t) {
            const __m256i minimum_dot = _mm256_madd_epi16(minimums, load(y[t][b].sums));
            offsets[t] = add_scaled<K>(offsets[t], minimum, y[t][b].scale, minimum_dot);
            acc[t] = add_scaled<K>(acc[t], scale, y[t][b].scale, sums[t]);
        }
    }
    for (int t = 0; t < K; ++t) group.put(t, horizontal_sum(acc[t]) - horizontal_sum(offsets[t]));
};

// Q3_K: the quants read as unsigned 0..7 (two low bits plus 4 for a set high bit); the 4 every
// value is below that comes back out through the activation sums per 16, as Q6_K's 32 does.
constexpr auto q3_k = []<int K>(const void* w, const TokenGroup<K>& group, size_t n) {
    const auto* x = static_cast<const BlockQ3_K*>(w);
    const auto y = activation_rows<BlockQ8K>(group);
    const __m256i one = _mm256_set1_epi8(1);
    __m256 acc[K] = {};
    for (size_t b = 0; b < n / 256; ++b) {
        const __m128i scales = q3_k_scales(x[b].scales);
        const __m256i wide_scales = _mm256_cvtepi8_epi16(scales);
        const __m256i high = load(x[b].high_bits);
        __m256i sums[K];
        two_bit_sums<K>(
            x[b].quants, scales, true, super_block_quants<K>(y, b),
            [&](int part, int k) {
                return _mm256_slli_epi16(
                    _mm256_and_si256(_mm256_srli_epi16(high, 4 * part + k), one), 2);
            },
            sums);
        const float scale = half(x[b].scale);
        for (int t = 0; t < K; ++t) {
            const __m256i offsets = _mm256_madd_epi16(wide_scales, load(y[t][b].sums));
            acc[t] = add_scaled<K>(acc[t], scale, y[t][b].scale,
                                   _mm256_sub_epi32(sums[t], _mm256_slli_epi32(offsets, 2)));
        }
    }
    for (int t = 0; t < K; ++t) group.put(t, horizontal_sum(acc[t]));
};

// IQ4_XS: IQ4_NL's lookup per sub-block of 32, the pairs of products weighted by its scale.
constexpr auto iq4_xs = []<int K>(const void* w, const TokenGroup<K>& group, size_t n) {
    const auto* x = static_cast<const BlockIQ4_XS*>(w);
    const auto y = activation_rows<BlockQ8K>(group);
    const __m256i table = grid_table(kIq4Values);
    __m256 acc[K] = {};
    for (size_t b = 0; b < n / 256; ++b) {
        if constexpr (K == 1) prefetch_ahead(x + b);
        __m256i sums[K];
        for (int t = 0; t < K; ++t) sums[t] = _mm256_setzero_si256();
#pragma GCC unroll 8
        for (int sub = 0; sub < 8; ++sub) {
            const __m256i values = _mm256_shuffle_epi8(table, nibbles(x[b].quants + 16 * sub));
            const __m256i magnitudes = _mm256_sign_epi8(values, values);
            const __m256i scale =
                _mm256_set1_epi16(static_cast<int16_t>(unpack_scale_iq4_xs(sub, x[b])));
            for (int t = 0; t < K; ++t) {
                const __m256i q8 = load(y[t][b].quants + 32 * sub);
                const __m256i products =
                    _mm256_maddubs_epi16(magnitudes, _mm256_sign_epi8(q8, values));
                sums[t] = _mm256_add_epi32(sums[t], _mm256_madd_epi16(products, scale));
            }
        }
        const float scale = half(x[b].scale);
        for (int t = 0; t < K; ++t) {
            acc[t] = add_scaled<K>(acc[t], scale, y[t][b].scale, sums[t]);
        }
    }
    for (int t = 0; t < K; ++t) group.put(t, horizontal_sum(acc[t]));
};

}  // namespace

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

void set_kernels(DotTable& table) {
    set_kernel<f32>(table, kF32);
    set_kernel<f16>(table, kF16);
    set_kernel<bf16>(table, kBF16);
    set_kernel<q8_0>(table, kQ8_0);
    set_kernel<q4_0>(table, kQ4_0);
    set_kernel<q4_1>(table, kQ4_1);
    set_kernel<q5_0>(table, kQ5_0);
    set_kernel<q5_1>(table, kQ5_1);
    set_kernel<q4_k>(table, kQ4_K);
    set_kernel<q5_k>(table, kQ5_K);
    set_kernel<q6_k>(table, kQ6_K);
    set_kernel<q2_k>(table, kQ2_K);
    set_kernel<q3_k>(table, kQ3_K);
    set_kernel<iq4_xs>(table, kIQ4_XS);
}

}  // namespace hearth::kernels::avx2
