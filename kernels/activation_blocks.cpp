#include "kernels/activation_blocks.h"

#include <algorithm>
#include <cmath>
#include <cstddef>

#include "kernels/dot.h"

namespace hearth::kernels {

#if defined(HEARTH_HAVE_AVX2_KERNELS)
namespace avx2 {
void quantize_row_q8(const float* x, BlockQ8* out, size_t count);
void quantize_row_q8_offset(const float* x, BlockQ8Offset* out, size_t count);
void quantize_row_q8k(const float* x, BlockQ8K* out, size_t count);
void quantize_row_q4_0_lanes(const float* x, LaneGroup* out, size_t count);
}  // namespace avx2
#endif

void quantize_row_q8(const float* x, BlockQ8* out, size_t count) {
#if defined(HEARTH_HAVE_AVX2_KERNELS)
    if (best_isa() != Isa::Scalar) {
        avx2::quantize_row_q8(x, out, count);
        return;
    }
#endif
    quantize_row_q8_scalar(x, out, count);
}

void quantize_row_q8_offset(const float* x, BlockQ8Offset* out, size_t count) {
#if defined(HEARTH_HAVE_AVX2_KERNELS)
    if (best_isa() != Isa::Scalar) {
        avx2::quantize_row_q8_offset(x, out, count);
        return;
    }
#endif
    quantize_row_q8_offset_scalar(x, out, count);
}

// Quantised as quantize_row_q8 does, block by block, so the quants equal BlockQ8's.
void quantize_row_q8_offset_scalar(const float* x, BlockQ8Offset* out, size_t count) {
    for (size_t b = 0; b < count / 32; ++b) {
        BlockQ8 block;
        quantize_row_q8_scalar(x + 32 * b, &block, 32);
        out[b].scale = block.scale;
        int sum = 0;
        for (int i = 0; i < 32; ++i) {
            out[b].quants[i] = block.quants[i];
            sum += block.quants[i];
        }
        out[b].offset = 8 * sum;
    }
}

void quantize_row_q8_scalar(const float* x, BlockQ8* out, size_t count) {
    for (size_t b = 0; b < count / 32; ++b, x += 32) {
        float largest = 0.0f;
        for (int i = 0; i < 32; ++i) largest = std::max(largest, std::fabs(x[i]));
        const float scale = largest / 127.0f;
        const float inverse = scale != 0.0f ? 1.0f / scale : 0.0f;
        int sum = 0;
        for (int i = 0; i < 32; ++i) {
            const int q = static_cast<int>(std::nearbyint(x[i] * inverse));
            out[b].quants[i] = static_cast<int8_t>(q);
            sum += q;
        }
        out[b].scale = scale;
        out[b].scaled_sum = scale * static_cast<float>(sum);
    }
}

void quantize_row_q4_0_lanes(const float* x, LaneGroup* out, size_t count) {
#if defined(HEARTH_HAVE_AVX2_KERNELS)
    if (best_isa() != Isa::Scalar) {
        avx2::quantize_row_q4_0_lanes(x, out, count);
        return;
    }
#endif
    quantize_row_q4_0_lanes_scalar(x, out, count);
}

void quantize_row_q4_0_lanes_scalar(const float* x, LaneGroup* out, size_t count) {
    const size_t blocks = count / 32;
    // Only a partial last group has padding to clear; whole groups are written in full.
    if (blocks % LaneGroup::kBlocks != 0) out[blocks / LaneGroup::kBlocks] = LaneGroup{};
    for (size_t b = 0; b < blocks; ++b) {
        BlockQ8 block;
        quantize_row_q8_scalar(x + 32 * b, &block, 32);
        LaneGroup& group = out[b / LaneGroup::kBlocks];
        const size_t k = b % LaneGroup::kBlocks;
        // Element by element through lane_place, the layout's one definition: this loop is the
        // twin the AVX2 quantiser is tested against, not the one decode runs.
        group.offsets[2 * k] = group.offsets[2 * k + 1] = 0;
        for (size_t e = 0; e < 32; ++e) {
            const LanePlace place = lane_place(k, e);
            group.quants[place.vector][place.at] = block.quants[e];
            group.offsets[place.at / 4] -= 8 * block.quants[e];
        }
        group.scales[2 * k] = group.scales[2 * k + 1] = block.scale;
    }
}

void quantize_row_q8k(const float* x, BlockQ8K* out, size_t count) {
#if defined(HEARTH_HAVE_AVX2_KERNELS)
    if (best_isa() != Isa::Scalar) {
        avx2::quantize_row_q8k(x, out, count);
        return;
    }
#endif
    quantize_row_q8k_scalar(x, out, count);
}

void quantize_row_q8k_scalar(const float* x, BlockQ8K* out, size_t count) {
    for (size_t b = 0; b < count / 256; ++b, x += 256) {
        float largest = 0.0f;
        for (int i = 0; i < 256; ++i) largest = std::max(largest, std::fabs(x[i]));
        const float scale = largest / 127.0f;
        const float inverse = scale != 0.0f ? 1.0f / scale : 0.0f;
        for (int group = 0; group < 16; ++group) {
            int sum = 0;
            for (int i = group * 16; i < group * 16 + 16; ++i) {
                const int q =
                    std::clamp(static_cast<int>(std::nearbyint(x[i] * inverse)), -127, 127);
                out[b].quants[i] = static_cast<int8_t>(q);
                sum += q;
            }
            out[b].sums[group] = static_cast<int16_t>(sum);
        }
        out[b].scale = scale;
    }
}

}  // namespace hearth::kernels
