// The twins of gemm_vnni.cpp: the same sums over the same panel, one token and row at a time,
// with the same float operations per block so the two agree to rounding.
#include <cmath>

#include "kernels/gemm.h"
#include "kernels/half.h"
#include "kernels/quant_blocks.h"

namespace hearth::kernels {
namespace {

int32_t panel_quant(const PanelBlock& block, size_t lane, int i) {
    return block.quads[i / 4][lane][i % 4];
}

template <typename Block>
float f16_scale(const Block& w) {
    return half_to_float(w.scale);
}

// The *_0 formats and MXFP4: one scale and 32 signed values a block.
template <typename Block, int (*kValue)(const Block&, int),
          float (*kScale)(const Block&) = f16_scale<Block>>
struct ZeroFormat {
    static constexpr size_t kPanelBlocks = 1;
    static float block(const void* row, size_t index, const PanelBlock* panel, size_t lane,
                       float acc) {
        const Block& w = static_cast<const Block*>(row)[index];
        int32_t sum = 0;
        for (int i = 0; i < 32; ++i) sum += kValue(w, i) * panel_quant(panel[0], lane, i);
        return std::fma(static_cast<float>(sum), kScale(w) * panel[0].scale[lane], acc);
    }
};

int q4_0_value(const BlockQ4_0& w, int i) {
    return q4_0_nibble(w, i) - 8;
}
int q5_0_value(const BlockQ5_0& w, int i) {
    const uint32_t high = static_cast<uint32_t>(w.high_bits[i / 8] >> (i % 8)) & 1u;
    const int nibble = i < 16 ? w.quants[i] & 0x0f : w.quants[i - 16] >> 4;
    return (nibble | static_cast<int>(high << 4)) - 16;
}
int q8_0_value(const BlockQ8_0& w, int i) {
    return w.quants[i];
}
int mxfp4_value(const BlockMXFP4& w, int i) {
    return kMxfp4Values[i < 16 ? w.quants[i] & 0x0f : w.quants[i - 16] >> 4];
}
int iq4_nl_value(const BlockIQ4_NL& w, int i) {
    return kIq4Values[i < 16 ? w.quants[i] & 0x0f : w.quants[i - 16] >> 4];
}
float mxfp4_block_scale(const BlockMXFP4& w) {
    return mxfp4_scale(w.exponent);
}
using Q4_0Format = ZeroFormat<BlockQ4_0, q4_0_value>;
using Q5_0Format = ZeroFormat<BlockQ5_0, q5_0_value>;
using Q8_0Format = ZeroFormat<BlockQ8_0, q8_0_value>;
using Mxfp4Format = ZeroFormat<BlockMXFP4, mxfp4_value, mxfp4_block_scale>;
using Iq4NlFormat = ZeroFormat<BlockIQ4_NL, iq4_nl_value>;

// An IQ4_XS super-block over eight panel blocks: sub-block j is IQ4_NL's layout in bytes
// 16j..16j+16, with its own 6-bit scale.
struct Iq4XsFormat {
    static constexpr size_t kPanelBlocks = 8;
    static float block(const void* row, size_t index, const PanelBlock* panel, size_t lane,
                       float acc) {
        const auto& w = static_cast<const BlockIQ4_XS*>(row)[index];
        const float d = half_to_float(w.scale);
        for (int j = 0; j < 8; ++j) {
            const uint8_t* quants = w.quants + 16 * j;
            int32_t sum = 0;
            for (int i = 0; i < 32; ++i) {
                const int nibble = i < 16 ? quants[i] & 0x0f : quants[i - 16] >> 4;
                sum += kIq4Values[nibble] * panel_quant(panel[j], lane, i);
            }
            const float scale = d * static_cast<float>(unpack_scale_iq4_xs(j, w));
            acc = std::fma(static_cast<float>(sum), scale * panel[j].scale[lane], acc);
        }
        return acc;
    }
};

// A Q4_K or Q5_K super-block over eight panel blocks, one per sub-block.
template <typename Block>
struct KQuantFormat {
    static constexpr size_t kPanelBlocks = 8;
    static float block(const void* row, size_t index, const PanelBlock* panel, size_t lane,
                       float acc) {
        const auto& w = static_cast<const Block*>(row)[index];
        const float d = half_to_float(w.scale), minimum = half_to_float(w.minimum);
        for (int j = 0; j < 8; ++j) {
            uint8_t scale, min;
            unpack_scale_min_k4(j, w.scales, scale, min);
            int32_t sum = 0;
            for (int i = 0; i < 32; ++i)
                sum += k_quant_value(w, j, i) * panel_quant(panel[j], lane, i);
            acc = std::fma(static_cast<float>(sum), d * scale * panel[j].scale[lane], acc);
            acc = std::fma(-(minimum * min), panel[j].scaled_sum[lane], acc);
        }
        return acc;
    }
};

// The formats with a signed scale per 16 elements, over eight panel blocks: unit u is elements
// 32u..32u+31, with scales 2u and 2u + 1. Values gives value(block, unit, i), read unsigned, their
// offset kOffset, and scale(block, index).
template <typename Values>
struct HalvesFormat {
    static constexpr size_t kPanelBlocks = 8;
    static float block(const void* row, size_t index, const PanelBlock* panel, size_t lane,
                       float acc) {
        const auto& w = static_cast<const typename Values::Block*>(row)[index];
        const float d = half_to_float(w.scale);
        for (int unit = 0; unit < 8; ++unit) {
            const PanelBlock& p = panel[unit];
            int32_t first = -Values::kOffset * p.first_half[lane];
            int32_t second = -Values::kOffset * (p.sum[lane] - p.first_half[lane]);
            for (int i = 0; i < 32; ++i) {
                (i < 16 ? first : second) += Values::value(w, unit, i) * panel_quant(p, lane, i);
            }
            const float first_scale = d * static_cast<float>(Values::scale(w, 2 * unit));
            const float second_scale = d * static_cast<float>(Values::scale(w, 2 * unit + 1));
            acc = std::fma(static_cast<float>(first), first_scale * p.scale[lane], acc);
            acc = std::fma(static_cast<float>(second), second_scale * p.scale[lane], acc);
        }
        return acc;
    }
};

// Q3_K: two_bit_quant plus 4 where the high bit is set (0..7), offset by 4.
struct Q3_KValues {
    using Block = BlockQ3_K;
    static constexpr int32_t kOffset = 4;
    static int value(const BlockQ3_K& w, int unit, int i) {
        return q3_k_value(w, 32 * unit + i) + 4;
    }
    static int scale(const BlockQ3_K& w, int index) { return unpack_scale_q3_k(index, w.scales); }
};

// Q6_K: unit k takes the low (k % 4 < 2) or high nibbles of 32 low-bit bytes and two of the
// high-bit bytes' bit pairs, offset by 32.
struct Q6_KValues {
    using Block = BlockQ6_K;
    static constexpr int32_t kOffset = 32;
    static int value(const BlockQ6_K& w, int unit, int i) {
        const int half = unit / 4, k = unit % 4;
        const uint8_t low = w.low_bits[64 * half + 32 * (k % 2) + i];
        const uint8_t high = w.high_bits[32 * half + i];
        return ((low >> (4 * (k / 2))) & 0x0f) | (((high >> (2 * k)) & 3) << 4);
    }
    static int scale(const BlockQ6_K& w, int index) { return w.scales[index]; }
};

using Q3_KFormat = HalvesFormat<Q3_KValues>;
using Q6_KFormat = HalvesFormat<Q6_KValues>;

template <typename Format>
void gemm(const void* weights, size_t row_bytes, size_t rows, const PanelBlock* panel,
          size_t tokens, size_t columns, float* out, size_t out_stride) {
    const size_t panel_row = columns / 32;  // panel blocks per group
    const size_t blocks = panel_row / Format::kPanelBlocks;
    for (size_t t = 0; t < tokens; ++t) {
        const PanelBlock* group = panel + t / kPanelTokens * panel_row;
        const size_t lane = t % kPanelTokens;
        for (size_t r = 0; r < rows; ++r) {
            const void* row = static_cast<const std::byte*>(weights) + r * row_bytes;
            float acc = 0.0f;
            for (size_t b = 0; b < blocks; ++b) {
                acc = Format::block(row, b, group + b * Format::kPanelBlocks, lane, acc);
            }
            out[t * out_stride + r] = acc;
        }
    }
}

GemmTable make_table() {
    GemmTable table;
    table.gemm[2] = gemm<Q4_0Format>;  // ggml type ids
    table.gemm[6] = gemm<Q5_0Format>;
    table.gemm[8] = gemm<Q8_0Format>;
    table.gemm[11] = gemm<Q3_KFormat>;
    table.gemm[12] = gemm<KQuantFormat<BlockQ4_K>>;
    table.gemm[13] = gemm<KQuantFormat<BlockQ5_K>>;
    table.gemm[14] = gemm<Q6_KFormat>;
    table.gemm[20] = gemm<Iq4NlFormat>;
    table.gemm[23] = gemm<Iq4XsFormat>;
    table.gemm[39] = gemm<Mxfp4Format>;
    table.name = "scalar";
    return table;
}

}  // namespace

const GemmTable& scalar_gemm_table() {
    static const GemmTable table = make_table();
    return table;
}

}  // namespace hearth::kernels
