// AVX2 quantisation of activation rows (this file alone is compiled with AVX2; activation_blocks
// calls it only after the CPU confirmed it). Decode quantises every matrix's input once per token
// on one thread while the others wait, so the scalar loops' call to nearbyint per element shows
// (SmolLM-135M Q3_K_M: the Q8K loop alone took 4% of a decode step). Bit for bit the scalar
// result: the same maximum, the same division, the same product, rounded to nearest even.
#include <immintrin.h>

#include <cstdint>
#include <cstring>

#include "kernels/activation_blocks.h"

namespace hearth::kernels::avx2 {
namespace {

float largest_of(__m256 v) {
    __m128 m = _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    m = _mm_max_ps(m, _mm_movehl_ps(m, m));
    return _mm_cvtss_f32(_mm_max_ss(m, _mm_movehdup_ps(m)));
}

int sum_of(__m256i v) {
    __m128i s = _mm_add_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0x4e));
    return _mm_cvtsi128_si32(_mm_add_epi32(s, _mm_shuffle_epi32(s, 0xb1)));
}

// The largest magnitude of `vectors` vectors of eight at x. |x| first: maxps returns its second
// operand for a NaN, so a NaN is passed over as std::max(largest, |x|) passes it over.
float largest_magnitude(const float* x, int vectors) {
    const __m256 magnitude = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff));
    __m256 largest = _mm256_setzero_ps();
    for (int i = 0; i < vectors; ++i) {
        largest = _mm256_max_ps(_mm256_and_ps(_mm256_loadu_ps(x + 8 * i), magnitude), largest);
    }
    return largest_of(largest);
}

// A block's scale as the scalar loops compute it (its largest magnitude over 127, from `vectors`
// vectors of eight at x), and in `inverse` what its values are multiplied by.
float block_scale(const float* x, int vectors, __m256& inverse) {
    const float scale = largest_magnitude(x, vectors) / 127.0f;
    inverse = _mm256_set1_ps(scale != 0.0f ? 1.0f / scale : 0.0f);
    return scale;
}

// x * inverse rounded to the nearest integer (ties to even), as int32.
__m256i rounded(const float* x, __m256 inverse) {
    return _mm256_cvtps_epi32(_mm256_round_ps(_mm256_mul_ps(_mm256_loadu_ps(x), inverse),
                                              _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
}

// One block of 32 as quantize_row_q8 quantises it: returns its scale, and its quants as int32
// in q (elements 8i..8i+7 in q[i]).
float quantize_block(const float* x, __m256i (&q)[4]) {
    __m256 inverse;
    const float scale = block_scale(x, 4, inverse);
    for (int i = 0; i < 4; ++i) q[i] = rounded(x + 8 * i, inverse);
    return scale;
}

// A block's quants as bytes. packs works within 128-bit halves, so 32-bit word j holds elements
// 4g..4g+3 for g = 0, 2, 4, 6, 1, 3, 5, 7.
__m256i packed_bytes(const __m256i (&q)[4]) {
    return _mm256_packs_epi16(_mm256_packs_epi32(q[0], q[1]), _mm256_packs_epi32(q[2], q[3]));
}

// A block's quants in element order at `quants`; returns their sum. The permute puts the packed
// words back in element order.
int store_in_order(const __m256i (&q)[4], int8_t* quants) {
    const __m256i bytes =
        _mm256_permutevar8x32_epi32(packed_bytes(q), _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(quants), bytes);
    return sum_of(_mm256_add_epi32(_mm256_add_epi32(q[0], q[1]), _mm256_add_epi32(q[2], q[3])));
}

}  // namespace

void quantize_row_q8(const float* x, BlockQ8* out, size_t count) {
    for (size_t b = 0; b < count / 32; ++b, x += 32) {
        __m256i q[4];
        const float scale = quantize_block(x, q);
        const int sum = store_in_order(q, out[b].quants);
        out[b].scale = scale;
        out[b].scaled_sum = scale * static_cast<float>(sum);
    }
}

// The Q4_0 strips' activations, quantised once per prompt row and matrix: through quantize_row_q8
// one block at a time they took 5% of SmolLM-135M's pp512.
void quantize_row_q8_offset(const float* x, BlockQ8Offset* out, size_t count) {
    for (size_t b = 0; b < count / 32; ++b, x += 32) {
        __m256i q[4];
        out[b].scale = quantize_block(x, q);
        out[b].offset = 8 * store_in_order(q, out[b].quants);
    }
}

// The packed words already lie in lane_place's pairs: 64-bit word 0 holds elements 0-3 and 8-11
// (vector 0 of lanes 2k and 2k + 1), word 1 elements 16-19 and 24-27 (vector 2), word 2 elements
// 4-7 and 12-15 (vector 1), word 3 elements 20-23 and 28-31 (vector 3).
void quantize_row_q4_0_lanes(const float* x, LaneGroup* out, size_t count) {
    const size_t blocks = count / 32;
    // Only a partial last group has padding to clear; whole groups are written in full.
    if (blocks % LaneGroup::kBlocks != 0) out[blocks / LaneGroup::kBlocks] = LaneGroup{};
    for (size_t b = 0; b < blocks; ++b, x += 32) {
        __m256i q[4];
        const float scale = quantize_block(x, q);
        alignas(32) int64_t words[4];
        _mm256_store_si256(reinterpret_cast<__m256i*>(words), packed_bytes(q));
        LaneGroup& group = out[b / LaneGroup::kBlocks];
        const size_t k = b % LaneGroup::kBlocks;
        constexpr int kWordOfVector[4] = {0, 2, 1, 3};
        for (int vector = 0; vector < 4; ++vector) {
            std::memcpy(&group.quants[vector][8 * k], &words[kWordOfVector[vector]], 8);
        }
        // Lane 2k meets elements 0-7 and 16-23, lane 2k + 1 elements 8-15 and 24-31.
        group.offsets[2 * k] = -8 * sum_of(_mm256_add_epi32(q[0], q[2]));
        group.offsets[2 * k + 1] = -8 * sum_of(_mm256_add_epi32(q[1], q[3]));
        group.scales[2 * k] = group.scales[2 * k + 1] = scale;
    }
}

// Per 16 elements: clamped to ±127 as the scalar loop clamps, packed to bytes in element order,
// and summed (the k-quants' minimums multiply the sums).
void quantize_row_q8k(const float* x, BlockQ8K* out, size_t count) {
    const __m256i high = _mm256_set1_epi32(127), low = _mm256_set1_epi32(-127);
    for (size_t b = 0; b < count / 256; ++b, x += 256) {
        __m256 inverse;
        const float scale = block_scale(x, 32, inverse);
        for (int group = 0; group < 16; ++group) {
            __m256i q[2];
            for (int i = 0; i < 2; ++i) {
                q[i] = _mm256_max_epi32(
                    _mm256_min_epi32(rounded(x + 16 * group + 8 * i, inverse), high), low);
            }
            // packs interleaves the 128-bit halves: words 0-3, 8-11, 4-7, 12-15.
            const __m256i words = _mm256_packs_epi32(q[0], q[1]);
            const __m128i bytes =
                _mm_packs_epi16(_mm256_castsi256_si128(words), _mm256_extracti128_si256(words, 1));
            _mm_storeu_si128(reinterpret_cast<__m128i*>(out[b].quants + 16 * group),
                             _mm_shuffle_epi32(bytes, _MM_SHUFFLE(3, 1, 2, 0)));
            out[b].sums[group] = static_cast<int16_t>(sum_of(_mm256_add_epi32(q[0], q[1])));
        }
        out[b].scale = scale;
    }
}

}  // namespace hearth::kernels::avx2
