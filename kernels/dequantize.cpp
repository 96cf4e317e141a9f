#include "kernels/dequantize.h"

#include <cstring>

#include "kernels/half.h"
#include "kernels/quant_blocks.h"

namespace hearth::kernels {
namespace {

// Reads a little-endian 32-bit word from possibly unaligned bytes.
uint32_t load_u32(const uint8_t* bytes) {
    uint32_t word;
    std::memcpy(&word, bytes, sizeof word);
    return word;
}

template <typename Block>
const Block* blocks_of(const void* source) {
    return static_cast<const Block*>(source);
}

}  // namespace

void dequantize_f16(const void* source, float* out, size_t count) {
    const auto* bits = static_cast<const uint16_t*>(source);
    for (size_t i = 0; i < count; ++i) out[i] = half_to_float(bits[i]);
}

void dequantize_bf16(const void* source, float* out, size_t count) {
    const auto* bits = static_cast<const uint16_t*>(source);
    for (size_t i = 0; i < count; ++i) out[i] = bfloat16_to_float(bits[i]);
}

void dequantize_q8_0(const void* source, float* out, size_t count) {
    const auto* blocks = blocks_of<BlockQ8_0>(source);
    for (size_t b = 0; b < count / kBlock32; ++b, out += kBlock32) {
        const float scale = half_to_float(blocks[b].scale);
        for (int j = 0; j < kBlock32; ++j) out[j] = static_cast<float>(blocks[b].quants[j]) * scale;
    }
}

void dequantize_q4_0(const void* source, float* out, size_t count) {
    const auto* blocks = blocks_of<BlockQ4_0>(source);
    for (size_t b = 0; b < count / kBlock32; ++b, out += kBlock32) {
        const float scale = half_to_float(blocks[b].scale);
        for (int j = 0; j < kBlock32 / 2; ++j) {
            const int low = (blocks[b].quants[j] & 0x0f) - 8;
            const int high = (blocks[b].quants[j] >> 4) - 8;
            out[j] = static_cast<float>(low) * scale;
            out[j + kBlock32 / 2] = static_cast<float>(high) * scale;
        }
    }
}

void dequantize_q4_1(const void* source, float* out, size_t count) {
    const auto* blocks = blocks_of<BlockQ4_1>(source);
    for (size_t b = 0; b < count / kBlock32; ++b, out += kBlock32) {
        const float scale = half_to_float(blocks[b].scale);
        const float minimum = half_to_float(blocks[b].minimum);
        for (int j = 0; j < kBlock32 / 2; ++j) {
            out[j] = static_cast<float>(blocks[b].quants[j] & 0x0f) * scale + minimum;
            out[j + kBlock32 / 2] = static_cast<float>(blocks[b].quants[j] >> 4) * scale + minimum;
        }
    }
}

void dequantize_q5_0(const void* source, float* out, size_t count) {
    const auto* blocks = blocks_of<BlockQ5_0>(source);
    for (size_t b = 0; b < count / kBlock32; ++b, out += kBlock32) {
        const float scale = half_to_float(blocks[b].scale);
        const uint32_t high = load_u32(blocks[b].high_bits);
        for (int j = 0; j < kBlock32 / 2; ++j) {
            const uint32_t high_low = ((high >> j) << 4) & 0x10u;
            const uint32_t high_high = (high >> (j + 12)) & 0x10u;
            const int low = static_cast<int>((blocks[b].quants[j] & 0x0fu) | high_low) - 16;
            const int upper = static_cast<int>((blocks[b].quants[j] >> 4) | high_high) - 16;
            out[j] = static_cast<float>(low) * scale;
            out[j + kBlock32 / 2] = static_cast<float>(upper) * scale;
        }
    }
}

void dequantize_q5_1(const void* source, float* out, size_t count) {
    const auto* blocks = blocks_of<BlockQ5_1>(source);
    for (size_t b = 0; b < count / kBlock32; ++b, out += kBlock32) {
        const float scale = half_to_float(blocks[b].scale);
        const float minimum = half_to_float(blocks[b].minimum);
        const uint32_t high = load_u32(blocks[b].high_bits);
        for (int j = 0; j < kBlock32 / 2; ++j) {
            const uint32_t high_low = ((high >> j) << 4) & 0x10u;
            const uint32_t high_high = (high >> (j + 12)) & 0x10u;
            const uint32_t low = (blocks[b].quants[j] & 0x0fu) | high_low;
            const uint32_t upper = (blocks[b].quants[j] >> 4) | high_high;
            out[j] = static_cast<float>(low) * scale + minimum;
            out[j + kBlock32 / 2] = static_cast<float>(upper) * scale + minimum;
        }
    }
}

void dequantize_q4_k(const void* source, float* out, size_t count) {
    const auto* blocks = blocks_of<BlockQ4_K>(source);
    for (size_t b = 0; b < count / kBlock256; ++b) {
        const float scale = half_to_float(blocks[b].scale);
        const float minimum = half_to_float(blocks[b].minimum);
        const uint8_t* quants = blocks[b].quants;
        for (int group = 0; group < 4; ++group, quants += 32) {
            uint8_t sub_scale, sub_min;
            unpack_scale_min_k4(2 * group, blocks[b].scales, sub_scale, sub_min);
            const float scale_low = scale * sub_scale, min_low = minimum * sub_min;
            unpack_scale_min_k4(2 * group + 1, blocks[b].scales, sub_scale, sub_min);
            const float scale_high = scale * sub_scale, min_high = minimum * sub_min;
            for (int l = 0; l < 32; ++l) *out++ = scale_low * (quants[l] & 0x0f) - min_low;
            for (int l = 0; l < 32; ++l) *out++ = scale_high * (quants[l] >> 4) - min_high;
        }
    }
}

void dequantize_q5_k(const void* source, float* out, size_t count) {
    const auto* blocks = blocks_of<BlockQ5_K>(source);
    for (size_t b = 0; b < count / kBlock256; ++b) {
        const float scale = half_to_float(blocks[b].scale);
        const float minimum = half_to_float(blocks[b].minimum);
        const uint8_t* quants = blocks[b].quants;
        const uint8_t* high = blocks[b].high_bits;
        uint8_t mask_low = 1, mask_high = 2;
        for (int group = 0; group < 4; ++group, quants += 32) {
            uint8_t sub_scale, sub_min;
            unpack_scale_min_k4(2 * group, blocks[b].scales, sub_scale, sub_min);
            const float scale_low = scale * sub_scale, min_low = minimum * sub_min;
            unpack_scale_min_k4(2 * group + 1, blocks[b].scales, sub_scale, sub_min);
            const float scale_high = scale * sub_scale, min_high = minimum * sub_min;
            for (int l = 0; l < 32; ++l) {
                *out++ = scale_low * ((quants[l] & 0x0f) + (high[l] & mask_low ? 16 : 0)) - min_low;
            }
            for (int l = 0; l < 32; ++l) {
                *out++ =
                    scale_high * ((quants[l] >> 4) + (high[l] & mask_high ? 16 : 0)) - min_high;
            }
            mask_low = static_cast<uint8_t>(mask_low << 2);
            mask_high = static_cast<uint8_t>(mask_high << 2);
        }
    }
}

void dequantize_q6_k(const void* source, float* out, size_t count) {
    const auto* blocks = blocks_of<BlockQ6_K>(source);
    for (size_t b = 0; b < count / kBlock256; ++b) {
        const float scale = half_to_float(blocks[b].scale);
        const uint8_t* low = blocks[b].low_bits;
        const uint8_t* high = blocks[b].high_bits;
        const int8_t* scales = blocks[b].scales;
        for (int half = 0; half < 2; ++half, out += 128, low += 64, high += 32, scales += 8) {
            for (int l = 0; l < 32; ++l) {
                const int sub = l / 16;
                const int q1 = ((low[l] & 0x0f) | (((high[l] >> 0) & 3) << 4)) - 32;
                const int q2 = ((low[l + 32] & 0x0f) | (((high[l] >> 2) & 3) << 4)) - 32;
                const int q3 = ((low[l] >> 4) | (((high[l] >> 4) & 3) << 4)) - 32;
                const int q4 = ((low[l + 32] >> 4) | (((high[l] >> 6) & 3) << 4)) - 32;
                out[l + 0] = scale * scales[sub + 0] * q1;
                out[l + 32] = scale * scales[sub + 2] * q2;
                out[l + 64] = scale * scales[sub + 4] * q3;
                out[l + 96] = scale * scales[sub + 6] * q4;
            }
        }
    }
}

void dequantize_q2_k(const void* source, float* out, size_t count) {
    const auto* blocks = blocks_of<BlockQ2_K>(source);
    for (size_t b = 0; b < count / kBlock256; ++b, out += kBlock256) {
        const float scale = half_to_float(blocks[b].scale);
        const float minimum = half_to_float(blocks[b].minimum);
        for (int sub = 0; sub < 16; ++sub) {
            const uint8_t packed = blocks[b].scales[sub];
            const float sub_scale = scale * static_cast<float>(packed & 0x0f);
            const float sub_min = minimum * static_cast<float>(packed >> 4);
            for (int i = 16 * sub; i < 16 * sub + 16; ++i) {
                out[i] =
                    sub_scale * static_cast<float>(two_bit_quant(blocks[b].quants, i)) - sub_min;
            }
        }
    }
}

void dequantize_q3_k(const void* source, float* out, size_t count) {
    const auto* blocks = blocks_of<BlockQ3_K>(source);
    for (size_t b = 0; b < count / kBlock256; ++b, out += kBlock256) {
        const BlockQ3_K& block = blocks[b];
        const float scale = half_to_float(block.scale);
        for (int sub = 0; sub < 16; ++sub) {
            const float sub_scale =
                scale * static_cast<float>(unpack_scale_q3_k(sub, block.scales));
            for (int i = 16 * sub; i < 16 * sub + 16; ++i) {
                out[i] = sub_scale * static_cast<float>(q3_k_value(block, i));
            }
        }
    }
}

void dequantize_iq4_nl(const void* source, float* out, size_t count) {
    const auto* blocks = blocks_of<BlockIQ4_NL>(source);
    for (size_t b = 0; b < count / kBlock32; ++b, out += kBlock32) {
        const float scale = half_to_float(blocks[b].scale);
        for (int j = 0; j < kBlock32 / 2; ++j) {
            out[j] = scale * static_cast<float>(kIq4Values[blocks[b].quants[j] & 0x0f]);
            out[j + kBlock32 / 2] =
                scale * static_cast<float>(kIq4Values[blocks[b].quants[j] >> 4]);
        }
    }
}

void dequantize_iq4_xs(const void* source, float* out, size_t count) {
    const auto* blocks = blocks_of<BlockIQ4_XS>(source);
    for (size_t b = 0; b < count / kBlock256; ++b) {
        const float scale = half_to_float(blocks[b].scale);
        for (int sub = 0; sub < 8; ++sub, out += 32) {
            const float sub_scale = scale * static_cast<float>(unpack_scale_iq4_xs(sub, blocks[b]));
            const uint8_t* quants = blocks[b].quants + 16 * sub;
            for (int j = 0; j < 16; ++j) {
                out[j] = sub_scale * static_cast<float>(kIq4Values[quants[j] & 0x0f]);
                out[j + 16] = sub_scale * static_cast<float>(kIq4Values[quants[j] >> 4]);
            }
        }
    }
}

void dequantize_mxfp4(const void* source, float* out, size_t count) {
    const auto* blocks = blocks_of<BlockMXFP4>(source);
    for (size_t b = 0; b < count / kBlock32; ++b, out += kBlock32) {
        const float scale = mxfp4_scale(blocks[b].exponent);
        for (int j = 0; j < kBlock32 / 2; ++j) {
            out[j] = static_cast<float>(kMxfp4Values[blocks[b].quants[j] & 0x0f]) * scale;
            out[j + kBlock32 / 2] =
                static_cast<float>(kMxfp4Values[blocks[b].quants[j] >> 4]) * scale;
        }
    }
}

}  // namespace hearth::kernels
