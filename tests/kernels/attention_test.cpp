// The attention block: its scalar twin against a double-precision softmax over each row's
// window, and the machine's kernel against the twin, for awkward head sizes, block lengths,
// partial windows, sliding windows (a row sees only its last positions), Gemma 2's soft-capped
// scores and states carried from one block to the next.
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
    size_t sliding = 0;  // a row sees only its last `sliding` positions; 0: all
    float softcap = 0.0f;
};

// The first position row r may see, given that it sees up to (not including) `end`.
size_t window_start(const Case& c, size_t end) {
    return c.sliding > 0 && end > c.sliding ? end - c.sliding : 0;
}

// Runs `kernel` over all positions in blocks; row r sees positions up to windows[r].
std::vector<float> attend(AttentionBlockFunction kernel, const Case& c,
                          const std::vector<float>& queries, const std::vector<uint16_t>& keys,
                          const std::vector<uint16_t>& values, size_t stride,
                          const std::vector<size_t>& windows) {
    std::vector<float> out(c.rows * c.head_dim, 0.0f);
    std::vector<AttentionRow> rows(c.rows);
    for (size_t r = 0; r < c.rows; ++r) {
        rows[r] = {&queries[r * c.head_dim],
                   &out[r * c.head_dim],
                   -std::numeric_limits<float>::infinity(),
                   0.0f,
                   0,
                   0};
    }
    const size_t block = attention_block_positions(c.head_dim);
    alignas(32) float scratch[kAttentionScratch];
    const AttentionScoring scoring{1.0f / std::sqrt(static_cast<float>(c.head_dim)), c.softcap};
    for (size_t start = 0; start < c.positions; start += block) {
        const size_t size = std::min(block, c.positions - start);
        for (size_t r = 0; r < c.rows; ++r) {
            rows[r].visible = windows[r] > start ? std::min(size, windows[r] - start) : 0;
            const size_t first = window_start(c, windows[r]);
            rows[r].hidden = first > start ? std::min(size, first - start) : 0;
        }
        kernel(rows.data(), rows.size(), &keys[start * stride], &values[start * stride], stride,
               size, c.head_dim, scoring, scratch);
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
        const size_t first = window_start(c, windows[r]);
        std::vector<double> weights(windows[r], 0.0);
        double largest = -1e300, total = 0.0;
        for (size_t p = first; p < windows[r]; ++p) {
            double dot = 0.0;
            for (size_t d = 0; d < c.head_dim; ++d) {
                dot += queries[r * c.head_dim + d] * half_to_float(keys[p * stride + d]);
            }
            weights[p] = dot * scale;
            if (c.softcap > 0.0f) weights[p] = c.softcap * std::tanh(weights[p] / c.softcap);
            largest = std::max(largest, weights[p]);
        }
        for (size_t p = first; p < windows[r]; ++p) {
            total += (weights[p] = std::exp(weights[p] - largest));
        }
        for (size_t d = 0; d < c.head_dim; ++d) {
            double expected = 0.0;
            for (size_t p = first; p < windows[r]; ++p) {
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
                                         Case{100, 33, 3}, Case{128, 130, 8}, Case{256, 70, 4},
                                         Case{64, 200, 32, 32}, Case{64, 130, 9, 70},
                                         Case{256, 100, 6, 5}, Case{64, 100, 7, 0, 1.0f},
                                         Case{128, 150, 10, 40, 0.5f}),
                         [](const auto& info) {
                             const Case& c = info.param;
                             return "dim" + std::to_string(c.head_dim) + "_positions" +
                                    std::to_string(c.positions) + "_rows" + std::to_string(c.rows) +
                                    "_window" + std::to_string(c.sliding) + "_cap" +
                                    std::to_string(static_cast<int>(c.softcap * 10));
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
