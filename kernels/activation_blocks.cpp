#include "kernels/activation_blocks.h"

#include <algorithm>
#include <cmath>
#include <cstddef>

namespace hearth::kernels {

void quantize_row_q8(const float* x, BlockQ8* out, size_t count) {
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

namespace {

// Where each of a block's 32 activations goes in its group, which 32-bit lane of the integer
// product meets it, and the weights' offset that lane's sum is scaled by.
struct Q4_0Lanes {
    static constexpr int kWeightOffset = 8;
    static int8_t& slot(Q4_0LaneGroup& group, size_t block, size_t j) {
        return (j < 16 ? group.low : group.high)[16 * block + j % 16];
    }
    static size_t lane(size_t j) { return j % 16 / 4; }
};

struct Q8_0Lanes {
    static constexpr int kWeightOffset = 128;
    static int8_t& slot(Q8_0LaneGroup& group, size_t block, size_t j) {
        return group.quants[32 * block + j];
    }
    static size_t lane(size_t j) { return j / 4; }
};

template <typename Lanes, typename Group>
void quantize_row_lanes(const float* x, Group* out, size_t count) {
    constexpr size_t kLanes = 16 / Group::kBlocks;  // per block
    std::fill_n(reinterpret_cast<std::byte*>(out), lane_groups<Group>(count) * sizeof(Group),
                std::byte{0});
    for (size_t b = 0; b < count / 32; ++b) {
        BlockQ8 block;
        quantize_row_q8(x + 32 * b, &block, 32);
        Group& group = out[b / Group::kBlocks];
        const size_t k = b % Group::kBlocks;
        int sums[kLanes] = {};
        for (size_t j = 0; j < 32; ++j) {
            Lanes::slot(group, k, j) = block.quants[j];
            sums[Lanes::lane(j)] += block.quants[j];
        }
        for (size_t lane = 0; lane < kLanes; ++lane) {
            group.offsets[kLanes * k + lane] = -Lanes::kWeightOffset * sums[lane];
            group.scales[kLanes * k + lane] = block.scale;
        }
    }
}

}  // namespace

void quantize_row_q4_0_lanes(const float* x, Q4_0LaneGroup* out, size_t count) {
    quantize_row_lanes<Q4_0Lanes>(x, out, count);
}

void quantize_row_q8_0_lanes(const float* x, Q8_0LaneGroup* out, size_t count) {
    quantize_row_lanes<Q8_0Lanes>(x, out, count);
}

void quantize_row_q8k(const float* x, BlockQ8K* out, size_t count) {
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
