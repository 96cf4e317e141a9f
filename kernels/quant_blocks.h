// Byte layouts of the quantised block formats GGUF files store (ggml's, bit for bit).
// Every kernel that reads quantised weights agrees with these structs.
#pragma once

#include <cstddef>
#include <cstdint>

namespace hearth::kernels {

inline constexpr int kBlock32 = 32;    // elements per block of the *_0 / *_1 formats
inline constexpr int kBlock256 = 256;  // elements per super-block of the k-quant formats
inline constexpr int kScaleBytesK = 12;

struct BlockQ8_0 {
    uint16_t scale;  // f16
    int8_t quants[kBlock32];
};

struct BlockQ4_0 {
    uint16_t scale;                // f16
    uint8_t quants[kBlock32 / 2];  // element j in the low nibble, j + 16 in the high one
};

struct BlockQ4_1 {
    uint16_t scale;    // f16
    uint16_t minimum;  // f16
    uint8_t quants[kBlock32 / 2];
};

struct BlockQ5_0 {
    uint16_t scale;        // f16
    uint8_t high_bits[4];  // bit j is the fifth bit of element j
    uint8_t quants[kBlock32 / 2];
};

struct BlockQ5_1 {
    uint16_t scale;    // f16
    uint16_t minimum;  // f16
    uint8_t high_bits[4];
    uint8_t quants[kBlock32 / 2];
};

struct BlockQ4_K {
    uint16_t scale;                // f16, multiplies the 6-bit sub-block scales
    uint16_t minimum;              // f16, multiplies the 6-bit sub-block minimums
    uint8_t scales[kScaleBytesK];  // 8 scales and 8 minimums, 6 bits each
    uint8_t quants[kBlock256 / 2];
};

struct BlockQ5_K {
    uint16_t scale;
    uint16_t minimum;
    uint8_t scales[kScaleBytesK];
    uint8_t high_bits[kBlock256 / 8];
    uint8_t quants[kBlock256 / 2];
};

struct BlockQ6_K {
    uint8_t low_bits[kBlock256 / 2];   // lower 4 bits
    uint8_t high_bits[kBlock256 / 4];  // upper 2 bits
    int8_t scales[kBlock256 / 16];     // one signed 8-bit scale per 16 elements
    uint16_t scale;                    // f16 super-block scale
};

static_assert(sizeof(BlockQ8_0) == 34);
static_assert(sizeof(BlockQ4_0) == 18);
static_assert(sizeof(BlockQ4_1) == 20);
static_assert(sizeof(BlockQ5_0) == 22);
static_assert(sizeof(BlockQ5_1) == 24);
static_assert(sizeof(BlockQ4_K) == 144);
static_assert(sizeof(BlockQ5_K) == 176);
static_assert(sizeof(BlockQ6_K) == 210);

// Unpacks sub-block `index` (0..7) of a k-quant's packed 6-bit scales and minimums.
inline void unpack_scale_min_k4(int index, const uint8_t* packed, uint8_t& scale,
                                uint8_t& minimum) {
    if (index < 4) {
        scale = packed[index] & 63;
        minimum = packed[index + 4] & 63;
    } else {
        scale = static_cast<uint8_t>((packed[index + 4] & 0xf) | ((packed[index - 4] >> 6) << 4));
        minimum = static_cast<uint8_t>((packed[index + 4] >> 4) | ((packed[index] >> 6) << 4));
    }
}

// Element `index` (0..31) of sub-block `sub_block` (0..7) of a Q4_K/Q5_K super-block's nibbles:
// sub-blocks 2j and 2j+1 share 32 bytes, the even one in the low nibbles.
inline int k_quant_nibble(const uint8_t* quants, int sub_block, int index) {
    const uint8_t byte = quants[32 * (sub_block / 2) + index];
    return sub_block % 2 == 0 ? (byte & 0x0f) : (byte >> 4);
}

// Element `index` (0..31) of a Q4_0 block, as its unsigned nibble (the value is nibble - 8).
inline int q4_0_nibble(const BlockQ4_0& block, int index) {
    return index < 16 ? (block.quants[index] & 0x0f) : (block.quants[index - 16] >> 4);
}

}  // namespace hearth::kernels
