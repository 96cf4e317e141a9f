// Byte layouts of the quantised block formats GGUF files store (ggml's, bit for bit).
// Every kernel that reads quantised weights agrees with these structs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

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

// 16 sub-blocks of 16 elements: value = d * scale * q - dmin * minimum, q of 2 bits; the scale
// in the low and the minimum in the high nibble of scales[sub-block]. Element e's two bits are
// bits 2j..2j+1 of quants[32 * (e / 128) + e % 32], j = e % 128 / 32.
struct BlockQ2_K {
    uint8_t scales[kBlock256 / 16];
    uint8_t quants[kBlock256 / 4];
    uint16_t scale;    // f16
    uint16_t minimum;  // f16
};

// 16 sub-blocks of 16 elements: value = d * (scale - 32) * (q - 4 * !high), q of 2 bits placed
// as in Q2_K; element e's high bit is bit 4 * (e / 128) + e % 128 / 32 of high_bits[e % 32], and
// a clear bit subtracts 4. The 6-bit scales are packed as unpack_scale_q3_k reads them.
struct BlockQ3_K {
    uint8_t high_bits[kBlock256 / 8];
    uint8_t quants[kBlock256 / 4];
    uint8_t scales[kScaleBytesK];
    uint16_t scale;  // f16
};

// A 4-bit index per element into kIq4Values (a non-uniform grid), laid out as Q4_0's nibbles.
struct BlockIQ4_NL {
    uint16_t scale;  // f16
    uint8_t quants[kBlock32 / 2];
};

// IQ4_NL's grid in 8 sub-blocks of 32 with 6-bit scales (minus 32): the low four bits of
// sub-block j's in nibble j % 2 of scales_low[j / 2], the top two in bits 2j..2j+1 of scales_high.
// Sub-block j's nibbles are quants[16 * j, 16 * j + 16), laid out as Q4_0's.
struct BlockIQ4_XS {
    uint16_t scale;  // f16
    uint16_t scales_high;
    uint8_t scales_low[kBlock256 / 64];
    uint8_t quants[kBlock256 / 2];
};

// The values IQ4_NL and IQ4_XS indices stand for (ggml's kvalues_iq4nl).
inline constexpr int8_t kIq4Values[16] = {-127, -104, -83, -65, -49, -35, -22, -10,
                                          1,    13,   25,  38,  53,  69,  89,  113};

// MXFP4 (gpt-oss's experts): a shared power-of-two exponent and 4-bit codes laid out as Q4_0's
// nibbles. value = kMxfp4Values[code] * 2^(exponent - 128).
struct BlockMXFP4 {
    uint8_t exponent;  // E8M0: 2^(exponent - 127), halved because the values below are doubled
    uint8_t quants[kBlock32 / 2];
};

// The E2M1 values (0, 0.5, 1, 1.5, 2, 3, 4, 6 and their negatives) doubled, so they are
// integers an integer dot product can take; the block's scale is halved to match.
inline constexpr int8_t kMxfp4Values[16] = {0, 1,  2,  3,  4,  6,  8,  12,
                                            0, -1, -2, -3, -4, -6, -8, -12};

// 2^(exponent - 128) exactly, from its bits: exponents 0 and 1 give the subnormals 2^-128 and
// 2^-127, and 255 gives 2^127: ggml reads 255 as a number too, not as E8M0's NaN.
inline float mxfp4_scale(uint8_t exponent) {
    const uint32_t bits =
        exponent < 2 ? 0x00200000u << exponent : static_cast<uint32_t>(exponent - 1) << 23;
    float scale;
    std::memcpy(&scale, &bits, sizeof scale);
    return scale;
}

static_assert(sizeof(BlockQ8_0) == 34);
static_assert(sizeof(BlockQ4_0) == 18);
static_assert(sizeof(BlockQ4_1) == 20);
static_assert(sizeof(BlockQ5_0) == 22);
static_assert(sizeof(BlockQ5_1) == 24);
static_assert(sizeof(BlockQ4_K) == 144);
static_assert(sizeof(BlockQ5_K) == 176);
static_assert(sizeof(BlockQ6_K) == 210);
static_assert(sizeof(BlockQ2_K) == 84);
static_assert(sizeof(BlockQ3_K) == 110);
static_assert(sizeof(BlockIQ4_NL) == 18);
static_assert(sizeof(BlockIQ4_XS) == 136);
static_assert(sizeof(BlockMXFP4) == 17);

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

// Sub-block `index` (0..15) of a Q3_K super-block's scale, 32 below its stored 6 bits: the low
// four bits are nibble index / 8 of packed[index % 8], the top two bits 2 * (index / 4) and up
// of packed[8 + index % 4].
inline int unpack_scale_q3_k(int index, const uint8_t* packed) {
    const int low = (packed[index % 8] >> (4 * (index / 8))) & 0x0f;
    const int high = (packed[8 + index % 4] >> (2 * (index / 4))) & 3;
    return (low | (high << 4)) - 32;
}

// Sub-block `index` (0..7) of an IQ4_XS super-block's scale, 32 below its stored 6 bits.
inline int unpack_scale_iq4_xs(int index, const BlockIQ4_XS& block) {
    const int low = (block.scales_low[index / 2] >> (4 * (index % 2))) & 0x0f;
    const int high = (block.scales_high >> (2 * index)) & 3;
    return (low | (high << 4)) - 32;
}

// Element `index` (0..255) of a Q2_K or Q3_K super-block's 2-bit quants.
inline int two_bit_quant(const uint8_t* quants, int index) {
    return (quants[32 * (index / 128) + index % 32] >> (2 * (index % 128 / 32))) & 3;
}

// Element `index` (0..255) of a Q3_K super-block as a signed value (-4..3).
inline int q3_k_value(const BlockQ3_K& block, int index) {
    const int high = (block.high_bits[index % 32] >> (4 * (index / 128) + index % 128 / 32)) & 1;
    return two_bit_quant(block.quants, index) - (high ? 0 : 4);
}

// Element `index` (0..31) of sub-block `sub_block` (0..7) of a Q4_K/Q5_K super-block's nibbles:
// sub-blocks 2j and 2j+1 share 32 bytes, the even one in the low nibbles.
inline int k_quant_nibble(const uint8_t* quants, int sub_block, int index) {
    const uint8_t byte = quants[32 * (sub_block / 2) + index];
    return sub_block % 2 == 0 ? (byte & 0x0f) : (byte >> 4);
}

// Element `index` (0..31) of sub-block `sub_block` (0..7) of a Q4_K or Q5_K super-block, unsigned:
// the nibble, and for Q5_K its fifth bit, bit `sub_block` of high byte `index`.
inline int k_quant_value(const BlockQ4_K& block, int sub_block, int index) {
    return k_quant_nibble(block.quants, sub_block, index);
}
inline int k_quant_value(const BlockQ5_K& block, int sub_block, int index) {
    return k_quant_nibble(block.quants, sub_block, index) +
           ((block.high_bits[index] >> sub_block & 1) << 4);
}

// Element `index` (0..31) of a Q4_0 block, as its unsigned nibble (the value is nibble - 8).
inline int q4_0_nibble(const BlockQ4_0& block, int index) {
    return index < 16 ? (block.quants[index] & 0x0f) : (block.quants[index - 16] >> 4);
}

}  // namespace hearth::kernels
