#include "kernels/quantize.h"

#include <algorithm>
#include <cmath>

#include "kernels/half.h"
#include "kernels/quant_blocks.h"

namespace hearth::kernels {
namespace {

int round_clamped(float value, int low, int high) {
    return std::clamp(static_cast<int>(std::nearbyint(value)), low, high);
}

float inverse(float value) {
    return value != 0.0f ? 1.0f / value : 0.0f;
}

// The value of largest magnitude in a block of 32, sign kept: Q4_0 and Q5_0 map it to their
// lowest level, so both signs use the full range.
float extreme_of_32(const float* x) {
    float extreme = 0.0f;
    for (int i = 0; i < 32; ++i) {
        if (std::fabs(x[i]) > std::fabs(extreme)) extreme = x[i];
    }
    return extreme;
}

}  // namespace

void quantize_f16(const float* x, void* out, size_t count) {
    auto* bits = static_cast<uint16_t*>(out);
    for (size_t i = 0; i < count; ++i) bits[i] = float_to_half(x[i]);
}

void quantize_bf16(const float* x, void* out, size_t count) {
    auto* bits = static_cast<uint16_t*>(out);
    for (size_t i = 0; i < count; ++i) bits[i] = float_to_bfloat16(x[i]);
}

void quantize_q8_0(const float* x, void* out, size_t count) {
    auto* blocks = static_cast<BlockQ8_0*>(out);
    for (size_t b = 0; b < count / 32; ++b, x += 32) {
        float largest = 0.0f;
        for (int i = 0; i < 32; ++i) largest = std::max(largest, std::fabs(x[i]));
        const float scale = largest / 127.0f;
        blocks[b].scale = float_to_half(scale);
        for (int i = 0; i < 32; ++i)
            blocks[b].quants[i] =
                static_cast<int8_t>(round_clamped(x[i] * inverse(scale), -127, 127));
    }
}

void quantize_q4_0(const float* x, void* out, size_t count) {
    auto* blocks = static_cast<BlockQ4_0*>(out);
    for (size_t b = 0; b < count / 32; ++b, x += 32) {
        const float scale = extreme_of_32(x) / -8.0f;
        blocks[b].scale = float_to_half(scale);
        for (int j = 0; j < 16; ++j) {
            const int low = round_clamped(x[j] * inverse(scale) + 8.0f, 0, 15);
            const int high = round_clamped(x[j + 16] * inverse(scale) + 8.0f, 0, 15);
            blocks[b].quants[j] = static_cast<uint8_t>(low | (high << 4));
        }
    }
}

// Q4_K's stand-in where rows are not whole 256-element super-blocks (llama.cpp's fallback).
void quantize_q5_0(const float* x, void* out, size_t count) {
    auto* blocks = static_cast<BlockQ5_0*>(out);
    for (size_t b = 0; b < count / 32; ++b, x += 32) {
        const float scale = extreme_of_32(x) / -16.0f;
        blocks[b].scale = float_to_half(scale);
        uint32_t high = 0;
        for (int j = 0; j < 16; ++j) {
            const int low = round_clamped(x[j] * inverse(scale) + 16.0f, 0, 31);
            const int upper = round_clamped(x[j + 16] * inverse(scale) + 16.0f, 0, 31);
            blocks[b].quants[j] = static_cast<uint8_t>((low & 15) | ((upper & 15) << 4));
            high |= static_cast<uint32_t>(low >> 4) << j;
            high |= static_cast<uint32_t>(upper >> 4) << (j + 16);
        }
        // Little-endian, as the dequantiser reads it.
        for (int k = 0; k < 4; ++k) blocks[b].high_bits[k] = static_cast<uint8_t>(high >> (8 * k));
    }
}

void quantize_q4_k(const float* x, void* out, size_t count) {
    auto* blocks = static_cast<BlockQ4_K*>(out);
    for (size_t b = 0; b < count / 256; ++b, x += 256) {
        float scales[8], minimums[8];
        for (int j = 0; j < 8; ++j) {
            const auto [low, high] = std::minmax_element(x + 32 * j, x + 32 * j + 32);
            minimums[j] = -std::min(*low, 0.0f);
            scales[j] = (*high + minimums[j]) / 15.0f;
        }
        const float scale = *std::max_element(scales, scales + 8) / 63.0f;
        const float minimum = *std::max_element(minimums, minimums + 8) / 63.0f;
        uint8_t sc[8], mn[8];
        for (int j = 0; j < 8; ++j) {
            sc[j] = static_cast<uint8_t>(round_clamped(scales[j] * inverse(scale), 0, 63));
            mn[j] = static_cast<uint8_t>(round_clamped(minimums[j] * inverse(minimum), 0, 63));
        }
        BlockQ4_K& block = blocks[b];
        block.scale = float_to_half(scale);
        block.minimum = float_to_half(minimum);
        for (int k = 0; k < 4; ++k) {
            block.scales[k] = static_cast<uint8_t>((sc[k] & 63) | ((sc[k + 4] >> 4) << 6));
            block.scales[k + 4] = static_cast<uint8_t>((mn[k] & 63) | ((mn[k + 4] >> 4) << 6));
            block.scales[k + 8] = static_cast<uint8_t>((sc[k + 4] & 15) | ((mn[k + 4] & 15) << 4));
        }
        // Quantise against the scales as stored, so rounding of the scales is accounted for.
        const float stored_scale = half_to_float(block.scale),
                    stored_minimum = half_to_float(block.minimum);
        for (int group = 0; group < 4; ++group) {
            for (int l = 0; l < 32; ++l) {
                int q[2];
                for (int side = 0; side < 2; ++side) {
                    const int j = 2 * group + side;
                    const float step = stored_scale * sc[j];
                    q[side] = round_clamped(
                        (x[32 * j + l] + stored_minimum * mn[j]) * inverse(step), 0, 15);
                }
                block.quants[32 * group + l] = static_cast<uint8_t>(q[0] | (q[1] << 4));
            }
        }
    }
}

void quantize_q6_k(const float* x, void* out, size_t count) {
    auto* blocks = static_cast<BlockQ6_K*>(out);
    for (size_t b = 0; b < count / 256; ++b, x += 256) {
        float group_scales[16];
        for (int g = 0; g < 16; ++g) {
            float largest = 0.0f;
            for (int i = 0; i < 16; ++i) largest = std::max(largest, std::fabs(x[16 * g + i]));
            group_scales[g] = largest / 31.0f;
        }
        const float scale = *std::max_element(group_scales, group_scales + 16) / 127.0f;
        BlockQ6_K& block = blocks[b];
        block.scale = float_to_half(scale);
        const float stored_scale = half_to_float(block.scale);
        uint8_t values[256];
        for (int g = 0; g < 16; ++g) {
            block.scales[g] =
                static_cast<int8_t>(round_clamped(group_scales[g] * inverse(scale), -128, 127));
            const float step = stored_scale * block.scales[g];
            for (int i = 0; i < 16; ++i)
                values[16 * g + i] = static_cast<uint8_t>(
                    round_clamped(x[16 * g + i] * inverse(step), -32, 31) + 32);
        }
        std::fill(block.low_bits, block.low_bits + 128, 0);
        std::fill(block.high_bits, block.high_bits + 64, 0);
        for (int half = 0; half < 2; ++half) {
            uint8_t* low = block.low_bits + 64 * half;
            uint8_t* high = block.high_bits + 32 * half;
            const uint8_t* v = values + 128 * half;
            for (int l = 0; l < 32; ++l) {
                low[l] = static_cast<uint8_t>((v[l] & 15) | ((v[l + 64] & 15) << 4));
                low[l + 32] = static_cast<uint8_t>((v[l + 32] & 15) | ((v[l + 96] & 15) << 4));
                high[l] = static_cast<uint8_t>((v[l] >> 4) | ((v[l + 32] >> 4) << 2) |
                                               ((v[l + 64] >> 4) << 4) | ((v[l + 96] >> 4) << 6));
            }
        }
    }
}

}  // namespace hearth::kernels
