// The attention block: its scalar twin against a double-precision softmax over each row's
// window, and the machine's kernel against the twin, for awkward head sizes, block lengths,
// partial windows and states carried from one block to the next.
#include "kernels/attention.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "kernels/attention_variants.h"
#include "kernels/half.h"
#include "tests/support/random_weights.h"

namespace hearth::kernels {
namespace {

struct Case {
    size_t head_dim, positions, rows;
};

// Runs `kernel` over all positions in blocks; row r sees the first windows[r] positions.
std::vector<float> attend(AttentionBlockFunction kernel, const Case& c,
                          const std::vector<float>& queries, const std::vector<uint16_t>& keys,
                          const std::vector<uint16_t>& values, size_t stride,
                          const std::vector<size_t>& windows) {
    std::vector<float> out(c.rows * c.head_dim, 0.0f);
    std::vector<AttentionRow> rows(c.rows);
    for (size_t r = 0; r < c.rows; ++r) {
        rows[r] = {&queries[r * c.head_dim], &out[r * c.head_dim],
                   -std::numeric_limits<float>::infinity(), 0.0f, 0};
    }
    const size_t block = attention_block_positions(c.head_dim);
    alignas(32) float scratch[kAttentionScratch];
    const float scale = 1.0f / std::sqrt(static_cast<float>(c.head_dim));
    for (size_t start = 0; start < c.positions; start += block) {
        const size_t size = std::min(block, c.positions - start);
        for (size_t r = 0; r < c.rows; ++r) {
            rows[r].visible = windows[r] > start ? std::min(size, windows[r] - start) : 0;
        }
        kernel(rows.data(), rows.size(), &keys[start * stride], &values[start * stride], stride,
               size, c.head_dim, scale, scratch);
    }
    for (size_t r = 0; r < c.rows; ++r) {
        for (size_t d = 0; d < c.head_dim; ++d) out[r * c.head_dim + d] /= rows[r].denominator;
    }
    return out;
}

class AttentionTest : public testing::TestWithParam<Case> {};

TEST_P(AttentionTest, TwinIsTheSoftmaxAndSimdIsTheTwin) {
    const Case c = GetParam();
    std::mt19937 random(static_cast<unsigned>(c.head_dim * 1000 + c.positions));
    const size_t stride = c.head_dim * 3 + 5;  // other heads' values in between
    const auto queries = random_floats(c.rows * c.head_dim, random, 2.0f);
    std::vector<uint16_t> keys(c.positions * stride), values(c.positions * stride);
    for (auto* cache : {&keys, &values}) {
        const auto floats = random_floats(cache->size(), random);
        for (size_t i = 0; i < cache->size(); ++i) (*cache)[i] = float_to_half(floats[i]);
    }
    // Windows from one position to all of them, ending inside and at the edges of blocks.
    std::vector<size_t> windows(c.rows);
    for (size_t r = 0; r < c.rows; ++r) windows[r] = 1 + (r * 37 + c.positions) % c.positions;
    windows.back() = c.positions;

    const auto twin = attend(scalar::attention_block, c, queries, keys, values, stride, windows);
    const auto simd = attend(attention_block(), c, queries, keys, values, stride, windows);
    const double scale = 1.0 / std::sqrt(static_cast<double>(c.head_dim));
    for (size_t r = 0; r < c.rows; ++r) {
        std::vector<double> weights(windows[r]);
        double largest = -1e300, total = 0.0;
        for (size_t p = 0; p < windows[r]; ++p) {
            double dot = 0.0;
            for (size_t d = 0; d < c.head_dim; ++d) {
                dot += queries[r * c.head_dim + d] * half_to_float(keys[p * stride + d]);
            }
            weights[p] = dot * scale;
            largest = std::max(largest, weights[p]);
        }
        for (auto& w : weights) total += (w = std::exp(w - largest));
        for (size_t d = 0; d < c.head_dim; ++d) {
            double expected = 0.0;
            for (size_t p = 0; p < windows[r]; ++p) {
                expected += weights[p] / total * half_to_float(values[p * stride + d]);
            }
            const size_t i = r * c.head_dim + d;
            ASSERT_NEAR(twin[i], expected, 2e-5) << "row " << r << " dim " << d;
            ASSERT_NEAR(simd[i], twin[i], 2e-5)
                << isa_name(best_isa()) << " row " << r << " dim " << d;
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Shapes, AttentionTest,
                         testing::Values(Case{8, 1, 1}, Case{64, 100, 2}, Case{64, 7, 5},
                                         Case{64, 64, 9}, Case{64, 200, 32}, Case{80, 65, 12},
                                         Case{100, 33, 3}, Case{128, 130, 8}, Case{256, 70, 4}),
                         [](const auto& info) {
                             return "dim" + std::to_string(info.param.head_dim) + "_positions" +
                                    std::to_string(info.param.positions) + "_rows" +
                                    std::to_string(info.param.rows);
                         });

TEST(Attention, BlocksFitTheScratch) {
    for (const size_t head_dim : {8, 64, 128, 129, 256}) {
        const size_t positions = attention_block_positions(head_dim);
        const size_t padded = (positions + 31) / 32 * 32;
        EXPECT_LE(head_dim * padded + positions * head_dim, kAttentionScratch) << head_dim;
        EXPECT_LE(positions, 64u);
    }
}

}  // namespace
}  // namespace hearth::kernels
