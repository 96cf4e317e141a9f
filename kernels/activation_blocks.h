// Activations quantised on the fly so weights can be multiplied with integer dot products.
#pragma once

#include <cstddef>
#include <cstdint>

namespace hearth::kernels {

// For the 32-element weight formats (Q8_0, Q4_0, Q4_1, Q5_0, Q5_1, IQ4_NL, MXFP4).
struct BlockQ8 {
    float scale;
    float scaled_sum;  // scale * sum(quants): what the *_1 formats' offsets multiply
    int8_t quants[32];
};

// For Q4_0's row kernels (dot_rows_avx2.cpp): BlockQ8's scale and quants, with the sum an
// integer so that reading the weights' nibbles unsigned (value + 8) is undone exactly, in the
// same int32 as the products, rather than by a float offset per block.
struct BlockQ8Offset {
    float scale;
    int32_t offset;  // 8 times the sum of the quants
    int8_t quants[32];
};

// For the k-quant formats (Q4_K, Q5_K, Q6_K): one scale per 256, with sums per 16 for the minimums.
struct BlockQ8K {
    float scale;
    int8_t quants[256];
    int16_t sums[16];
};

// Q8 blocks laid out for the AVX-512 Q4_0 decode kernel (and IQ4_NL's, IQ4_XS's and MXFP4's, whose
// nibbles lie as Q4_0's): eight blocks to a group, one product of 16 lanes, two lanes per block.
// Lane 2k + h of block k meets the 16 elements that bytes 8h..8h+7 of a Q4_0 block's nibbles hold:
// `quants[v]` has, for lane l = 2k + h and byte i < 4, element 8h + 4v + i of block k for v = 0
// and 1 (the low nibbles of the lane's two words) and element 16 + 8h + 4(v - 2) + i for v = 2
// and 3 (the high nibbles), at quants[v][4l + i]. The kernel reads the nibbles unsigned, so
// `offsets` holds -8 times each lane's activation sum, and `scales` each block's scale per
// lane. A last partial group is padded with zero blocks.
struct LaneGroup {
    static constexpr size_t kBlocks = 8;
    int8_t quants[4][64];
    int32_t offsets[16];
    float scales[16];
};

// Element e (0..31) of block k of a group: which quants[v][at] holds it.
struct LanePlace {
    size_t vector, at;
};
inline LanePlace lane_place(size_t k, size_t e) {
    const size_t high = e / 16, half = e % 16 / 8, word = e % 8 / 4;
    return {2 * high + word, 4 * (2 * k + half) + e % 4};
}

inline size_t lane_groups(size_t count) {
    return (count / 32 + LaneGroup::kBlocks - 1) / LaneGroup::kBlocks;
}

void quantize_row_q8(const float* x, BlockQ8* out, size_t count);
// The plain loop quantize_row_q8 runs on CPUs without AVX2; its SIMD version equals it bit for bit.
void quantize_row_q8_scalar(const float* x, BlockQ8* out, size_t count);        // count % 32 == 0
void quantize_row_q8_offset(const float* x, BlockQ8Offset* out, size_t count);  // count % 32 == 0
// The plain loop quantize_row_q8_offset runs on CPUs without AVX2 (bit for bit the same).
void quantize_row_q8_offset_scalar(const float* x, BlockQ8Offset* out, size_t count);
void quantize_row_q4_0_lanes(const float* x, LaneGroup* out, size_t count);  // count % 32 == 0
// The plain loop quantize_row_q4_0_lanes runs on CPUs without AVX2 (bit for bit the same).
void quantize_row_q4_0_lanes_scalar(const float* x, LaneGroup* out, size_t count);
void quantize_row_q8k(const float* x, BlockQ8K* out, size_t count);  // count % 256 == 0
// The plain loop quantize_row_q8k runs on CPUs without AVX2 (bit for bit the same).
void quantize_row_q8k_scalar(const float* x, BlockQ8K* out, size_t count);  // count % 256 == 0

}  // namespace hearth::kernels
