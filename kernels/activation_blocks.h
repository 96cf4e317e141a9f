// Activations quantised on the fly so weights can be multiplied with integer dot products.
#pragma once

#include <cstddef>
#include <cstdint>

namespace hearth::kernels {

// For the 32-element weight formats (Q8_0, Q4_0, Q4_1, Q5_0, Q5_1).
struct BlockQ8 {
    float scale;
    float scaled_sum;  // scale * sum(quants): what the *_1 formats' offsets multiply
    int8_t quants[32];
};

// For the k-quant formats (Q4_K, Q5_K, Q6_K): one scale per 256, with sums per 16 for the minimums.
struct BlockQ8K {
    float scale;
    int8_t quants[256];
    int16_t sums[16];
};

// The Q8 blocks laid out for the AVX-512 Q4_0 decode kernel, four blocks to a group because one
// 512-bit vector holds four Q4_0 blocks' nibbles: elements 0..15 of each block in `low`, 16..31
// in `high` (where a Q4_0 byte's two nibbles belong). Each 32-bit lane of the integer product
// meets four `low` and four `high` activations; `offsets` holds -8 x their sum, so Q4_0's offset
// of 8 leaves inside the integer sum, and `scales` repeats each block's scale over its four
// lanes. A last partial group is padded with zero blocks.
struct Q4_0LaneGroup {
    static constexpr size_t kBlocks = 4;
    int8_t low[64];
    int8_t high[64];
    int32_t offsets[16];
    float scales[16];
};

// The same for Q8_0, two blocks to a group (a vector holds two blocks' quants). The kernel reads
// the signed weights as unsigned (+128), so `offsets` holds -128 x each lane's activation sum.
struct Q8_0LaneGroup {
    static constexpr size_t kBlocks = 2;
    int8_t quants[64];
    int32_t offsets[16];
    float scales[16];
};

template <typename Group>
size_t lane_groups(size_t count) {
    return (count / 32 + Group::kBlocks - 1) / Group::kBlocks;
}

void quantize_row_q8(const float* x, BlockQ8* out, size_t count);                // count % 32 == 0
void quantize_row_q4_0_lanes(const float* x, Q4_0LaneGroup* out, size_t count);  // count % 32 == 0
void quantize_row_q8_0_lanes(const float* x, Q8_0LaneGroup* out, size_t count);  // count % 32 == 0
void quantize_row_q8k(const float* x, BlockQ8K* out, size_t count);              // count % 256 == 0

}  // namespace hearth::kernels
