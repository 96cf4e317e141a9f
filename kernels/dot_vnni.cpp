// AVX-512 VNNI dot products for decode (256-bit vectors; this file alone is compiled with
// AVX-512; it runs only after best_isa() confirmed the CPU has it). Eight blocks at a time:
// each block's dpbusd leaves eight partial sums, one lane-wise reduction turns eight blocks
// into one vector of block sums, and their scales are applied eight at a time from the planar
// activations (quants, then scales, then scaled sums) rather than one broadcast per block.
#include <immintrin.h>

#include "kernels/activation_blocks.h"
#include "kernels/dot_variants.h"
#include "kernels/quant_blocks.h"
#include "kernels/simd_helpers.h"

namespace hearth::kernels::vnni {
namespace {

// Lane k of the result is the sum of v[k]'s eight lanes.
__m256i sum_lanes(const __m256i* v) {
    const __m256i first =
        _mm256_hadd_epi32(_mm256_hadd_epi32(v[0], v[1]), _mm256_hadd_epi32(v[2], v[3]));
    const __m256i second =
        _mm256_hadd_epi32(_mm256_hadd_epi32(v[4], v[5]), _mm256_hadd_epi32(v[6], v[7]));
    return _mm256_add_epi32(_mm256_permute2x128_si256(first, second, 0x20),
                            _mm256_permute2x128_si256(first, second, 0x31));
}

// The unsigned weights of a block and the offset they carry (value = unsigned - offset).
struct Q4_0Weights {
    static constexpr float kOffset = 8.0f;
    static __m256i get(const BlockQ4_0& block) {
        const __m128i packed = _mm_loadu_si128(reinterpret_cast<const __m128i*>(block.quants));
        return _mm256_and_si256(_mm256_set_m128i(_mm_srli_epi16(packed, 4), packed),
                                _mm256_set1_epi8(0x0f));
    }
};

struct Q8_0Weights {
    static constexpr float kOffset = 128.0f;
    static __m256i get(const BlockQ8_0& block) {  // signed + 128: the top bit flipped
        return _mm256_xor_si256(load(block.quants), _mm256_set1_epi8(static_cast<char>(0x80)));
    }
};

template <typename Block>
__m256 weight_scales(const Block* x) {
    return _mm256_cvtph_ps(
        _mm_setr_epi16(static_cast<int16_t>(x[0].scale), static_cast<int16_t>(x[1].scale),
                       static_cast<int16_t>(x[2].scale), static_cast<int16_t>(x[3].scale),
                       static_cast<int16_t>(x[4].scale), static_cast<int16_t>(x[5].scale),
                       static_cast<int16_t>(x[6].scale), static_cast<int16_t>(x[7].scale)));
}

// d_w * d_a * sum(unsigned * a) - offset * d_w * (d_a * sum(a)), per block.
template <typename Block, typename Weights>
float dot(const void* w, const void* a, size_t n) {
    const auto* x = static_cast<const Block*>(w);
    const PlanarQ8 y = planar_q8(a, n);
    const size_t blocks = n / 32;
    __m256 acc = _mm256_setzero_ps();
    size_t b = 0;
    for (; b + 8 <= blocks; b += 8) {
        __m256i sums[8];
#pragma GCC unroll 8
        for (int k = 0; k < 8; ++k) {
            sums[k] = _mm256_dpbusd_epi32(_mm256_setzero_si256(), Weights::get(x[b + k]),
                                          load(y.quants + 32 * (b + k)));
        }
        const __m256 d = weight_scales(x + b);
        acc = _mm256_fmadd_ps(_mm256_cvtepi32_ps(sum_lanes(sums)),
                              _mm256_mul_ps(d, _mm256_loadu_ps(y.scales + b)), acc);
        acc = _mm256_fnmadd_ps(_mm256_mul_ps(d, _mm256_set1_ps(Weights::kOffset)),
                               _mm256_loadu_ps(y.scaled_sums + b), acc);
    }
    float tail = 0.0f;
    for (; b < blocks; ++b) {
        const __m256i sum = _mm256_dpbusd_epi32(_mm256_setzero_si256(), Weights::get(x[b]),
                                                load(y.quants + 32 * b));
        const float d = _cvtsh_ss(x[b].scale);
        tail += d * (y.scales[b] * horizontal_sum(_mm256_cvtepi32_ps(sum)) -
                     Weights::kOffset * y.scaled_sums[b]);
    }
    return horizontal_sum(acc) + tail;
}

}  // namespace

float dot_q4_0(const void* w, const void* a, size_t n) {
    return dot<BlockQ4_0, Q4_0Weights>(w, a, n);
}

float dot_q8_0(const void* w, const void* a, size_t n) {
    return dot<BlockQ8_0, Q8_0Weights>(w, a, n);
}

}  // namespace hearth::kernels::vnni
