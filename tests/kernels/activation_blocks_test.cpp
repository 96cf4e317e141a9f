// The activation quantisers: the SIMD row quantiser against the scalar loop bit for bit, and the
// decode layouts against the blocks they rearrange.
#include "kernels/activation_blocks.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "tests/support/random_weights.h"

namespace hearth::kernels {
namespace {

bool same_bits(const BlockQ8& a, const BlockQ8& b) {
    return std::memcmp(&a, &b, sizeof a) == 0;
}

// 64 blocks of 32: ties at every scale (x * inverse landing on .5), a zero block, a block with one
// value, infinities' neighbours and subnormals among random values.
std::vector<float> awkward_blocks() {
    std::mt19937 random(7);
    std::vector<float> x = random_floats(32 * 64, random, 3.0f);
    for (int i = 0; i < 32; ++i) x[i] = static_cast<float>(i - 16) * 0.25f;  // scale 0.5: ties
    x[31] = 127.0f / 2.0f;
    std::fill(x.begin() + 32, x.begin() + 64, 0.0f);
    x[64 + 5] = -1e-3f;
    x[96] = std::numeric_limits<float>::max();
    x[128] = std::numeric_limits<float>::denorm_min();
    x[160] = -std::numeric_limits<float>::min();
    return x;
}

TEST(ActivationBlocks, RowQuantiserEqualsTheScalarLoopBitForBit) {
    const std::vector<float> x = awkward_blocks();
    std::vector<BlockQ8> fast(x.size() / 32), plain(x.size() / 32);
    quantize_row_q8(x.data(), fast.data(), x.size());
    quantize_row_q8_scalar(x.data(), plain.data(), x.size());
    for (size_t b = 0; b < fast.size(); ++b) {
        EXPECT_TRUE(same_bits(fast[b], plain[b])) << "block " << b;
    }
    EXPECT_EQ(plain[0].quants[31], 127);
    EXPECT_EQ(plain[1].scale, 0.0f);
}

TEST(ActivationBlocks, OffsetQuantiserEqualsTheScalarLoopBitForBit) {
    const std::vector<float> x = awkward_blocks();
    std::vector<BlockQ8Offset> fast(x.size() / 32), plain(x.size() / 32);
    quantize_row_q8_offset(x.data(), fast.data(), x.size());
    quantize_row_q8_offset_scalar(x.data(), plain.data(), x.size());
    for (size_t b = 0; b < fast.size(); ++b) {
        EXPECT_EQ(std::memcmp(&fast[b], &plain[b], sizeof plain[b]), 0) << "block " << b;
        int sum = 0;
        for (const int8_t q : plain[b].quants) sum += q;
        EXPECT_EQ(plain[b].offset, 8 * sum) << "block " << b;
    }
    EXPECT_EQ(plain[0].quants[31], 127);
    EXPECT_EQ(plain[1].scale, 0.0f);
}

TEST(ActivationBlocks, KQuantRowQuantiserEqualsTheScalarLoopBitForBit) {
    std::mt19937 random(9);
    std::vector<float> x = random_floats(256 * 6, random, 3.0f);
    // Ties in every group of 16 (scale 0.5 in block 0), a zero block, a block with one value, the
    // largest float and subnormals.
    for (int i = 0; i < 256; ++i) x[i] = static_cast<float>(i % 64 - 32) * 0.25f;
    x[255] = 127.0f / 2.0f;
    std::fill(x.begin() + 256, x.begin() + 512, 0.0f);
    x[512 + 77] = -1e-3f;
    x[768 + 3] = std::numeric_limits<float>::max();
    x[1024 + 200] = std::numeric_limits<float>::denorm_min();
    x[1280 + 17] = -std::numeric_limits<float>::min();
    std::vector<BlockQ8K> fast(x.size() / 256), plain(x.size() / 256);
    quantize_row_q8k(x.data(), fast.data(), x.size());
    quantize_row_q8k_scalar(x.data(), plain.data(), x.size());
    for (size_t b = 0; b < fast.size(); ++b) {
        EXPECT_EQ(fast[b].scale, plain[b].scale) << "block " << b;
        EXPECT_EQ(std::memcmp(fast[b].quants, plain[b].quants, 256), 0) << "block " << b;
        EXPECT_EQ(std::memcmp(fast[b].sums, plain[b].sums, sizeof plain[b].sums), 0)
            << "block " << b;
    }
    EXPECT_EQ(plain[0].quants[255], 127);
    EXPECT_EQ(plain[0].quants[1], -16);  // -7.75 / 0.5 = -15.5, a tie: to the even -16
    EXPECT_EQ(plain[0].quants[3], -14);  // -7.25 / 0.5 = -14.5: to the even -14
    EXPECT_EQ(plain[1].scale, 0.0f);
}

TEST(ActivationBlocks, LaneQuantiserEqualsTheScalarLoopBitForBit) {
    std::mt19937 random(10);
    const size_t count = 32 * 19;  // two full groups and a padded one of three blocks
    std::vector<float> x = random_floats(count, random, 3.0f);
    for (int i = 0; i < 32; ++i) x[i] = static_cast<float>(i - 16) * 0.25f;  // ties
    x[31] = 127.0f / 2.0f;
    std::fill(x.begin() + 32, x.begin() + 64, 0.0f);
    x[96] = std::numeric_limits<float>::max();
    x[128] = std::numeric_limits<float>::denorm_min();
    // Stale bytes first, different in each buffer: every byte must be written or cleared.
    std::vector<LaneGroup> fast(lane_groups(count)), plain(lane_groups(count));
    std::memset(fast.data(), 0x5a, fast.size() * sizeof(LaneGroup));
    std::memset(plain.data(), 0xa5, plain.size() * sizeof(LaneGroup));
    quantize_row_q4_0_lanes(x.data(), fast.data(), count);
    quantize_row_q4_0_lanes_scalar(x.data(), plain.data(), count);
    for (size_t g = 0; g < fast.size(); ++g) {
        EXPECT_EQ(std::memcmp(&fast[g], &plain[g], sizeof(LaneGroup)), 0) << "group " << g;
    }
}

TEST(ActivationBlocks, Q4_0LanesHoldEachBlocksQuantsOffsetsAndScales) {
    std::mt19937 random(8);
    const size_t count = 32 * 11;  // one full group of eight blocks and a padded one of three
    const auto x = random_floats(count, random);
    std::vector<BlockQ8> blocks(count / 32);
    quantize_row_q8(x.data(), blocks.data(), count);
    // Stale bytes first, as in a reused buffer: every byte must be written or cleared.
    std::vector<LaneGroup> groups(lane_groups(count));
    std::memset(groups.data(), 0x5a, groups.size() * sizeof(LaneGroup));
    quantize_row_q4_0_lanes(x.data(), groups.data(), count);
    ASSERT_EQ(groups.size(), 2u);
    for (size_t b = 0; b < blocks.size(); ++b) {
        const LaneGroup& group = groups[b / 8];
        const size_t k = b % 8;
        for (size_t h = 0; h < 2; ++h) {
            // Lane 2k + h: bytes 8h..8h+7 of a block's nibbles, low nibbles in vectors 0 and 1
            // (four bytes each), high nibbles in vectors 2 and 3.
            const size_t lane = 2 * k + h;
            int sum = 0;
            for (size_t i = 0; i < 4; ++i) {
                const int8_t* q = blocks[b].quants;
                EXPECT_EQ(group.quants[0][4 * lane + i], q[8 * h + i]);
                EXPECT_EQ(group.quants[1][4 * lane + i], q[8 * h + 4 + i]);
                EXPECT_EQ(group.quants[2][4 * lane + i], q[16 + 8 * h + i]);
                EXPECT_EQ(group.quants[3][4 * lane + i], q[16 + 8 * h + 4 + i]);
                sum += q[8 * h + i] + q[8 * h + 4 + i] + q[16 + 8 * h + i] + q[16 + 8 * h + 4 + i];
            }
            EXPECT_EQ(group.offsets[lane], -8 * sum);
            EXPECT_EQ(group.scales[lane], blocks[b].scale);
        }
    }
    // The padding blocks meet nothing.
    for (size_t lane = 6; lane < 16; ++lane) {
        for (size_t v = 0; v < 4; ++v) {
            for (size_t i = 0; i < 4; ++i) EXPECT_EQ(groups[1].quants[v][4 * lane + i], 0);
        }
        EXPECT_EQ(groups[1].offsets[lane], 0);
        EXPECT_EQ(groups[1].scales[lane], 0.0f);
    }
}

}  // namespace
}  // namespace hearth::kernels
