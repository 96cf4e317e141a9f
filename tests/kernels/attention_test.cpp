// The attention blocks over F16 and Q8_0 caches: each scalar twin against a double-precision
// softmax over each row's window (of the values the cache holds), and the machine's kernel
// against the twin, for awkward head sizes, block lengths, partial windows, sliding windows (a
// row sees only its last positions), Gemma 2's soft-capped scores and states carried from one
// block to the next.
#include "kernels/attention.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "kernels/attention_variants.h"
#include "kernels/dequantize.h"
#include "kernels/half.h"
#include "kernels/quantize.h"
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

// Runs `kernel` over all positions in blocks; row r sees positions up to windows[r]. Positions
// are `stride` elements (halves or blocks) apart.
template <typename Kernel, typename Element>
std::vector<float> attend(Kernel kernel, const Case& c, const std::vector<float>& queries,
                          const std::vector<Element>& keys, const std::vector<Element>& values,
                          size_t stride, const std::vector<size_t>& windows) {
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

// A cache's keys and values for one test: `stride` values between positions (other heads'
// values in between), stored as `Element`s, and the floats they hold.
template <typename Element>
struct Cache {
    std::vector<Element> keys, values;
    std::vector<float> key_floats, value_floats;
};

Cache<uint16_t> half_cache(size_t values_count, std::mt19937& random) {
    Cache<uint16_t> cache;
    for (auto* side : {&cache.keys, &cache.values}) {
        const auto floats = random_floats(values_count, random);
        for (const float value : floats) side->push_back(float_to_half(value));
    }
    for (const uint16_t bits : cache.keys) cache.key_floats.push_back(half_to_float(bits));
    for (const uint16_t bits : cache.values) cache.value_floats.push_back(half_to_float(bits));
    return cache;
}

Cache<BlockQ8_0> q8_0_cache(size_t values_count, std::mt19937& random) {
    Cache<BlockQ8_0> cache;
    cache.keys.resize(values_count / kBlock32);
    cache.values.resize(values_count / kBlock32);
    quantize_q8_0(random_floats(values_count, random).data(), cache.keys.data(), values_count);
    quantize_q8_0(random_floats(values_count, random).data(), cache.values.data(), values_count);
    cache.key_floats.resize(values_count);
    cache.value_floats.resize(values_count);
    dequantize_q8_0(cache.keys.data(), cache.key_floats.data(), values_count);
    dequantize_q8_0(cache.values.data(), cache.value_floats.data(), values_count);
    return cache;
}

// How far each row of case `c` sees: from one position to all of them, ending inside and at the
// edges of blocks.
std::vector<size_t> row_windows(const Case& c) {
    std::vector<size_t> windows(c.rows);
    for (size_t r = 0; r < c.rows; ++r) windows[r] = 1 + (r * 37 + c.positions) % c.positions;
    return windows;
}

// Both kernels of a format on case `c`: the twin against the softmax in double precision, the
// machine's kernel against the twin. `stride` is in values; `per_element` values make one element.
template <typename Kernel, typename Element>
void check_kernels(const Case& c, Kernel twin_kernel, Kernel simd_kernel,
                   const Cache<Element>& cache, size_t stride, size_t per_element,
                   std::mt19937& random) {
    const auto queries = random_floats(c.rows * c.head_dim, random, 2.0f);
    std::vector<size_t> windows = row_windows(c);
    windows.back() = c.positions;

    const size_t element_stride = stride / per_element;
    const auto twin =
        attend(twin_kernel, c, queries, cache.keys, cache.values, element_stride, windows);
    const auto simd =
        attend(simd_kernel, c, queries, cache.keys, cache.values, element_stride, windows);
    const double scale = 1.0 / std::sqrt(static_cast<double>(c.head_dim));
    for (size_t r = 0; r < c.rows; ++r) {
        const size_t first = window_start(c, windows[r]);
        std::vector<double> weights(windows[r], 0.0);
        double largest = -1e300, total = 0.0;
        for (size_t p = first; p < windows[r]; ++p) {
            double dot = 0.0;
            for (size_t d = 0; d < c.head_dim; ++d) {
                dot += queries[r * c.head_dim + d] * cache.key_floats[p * stride + d];
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
                expected += weights[p] / total * cache.value_floats[p * stride + d];
            }
            const size_t i = r * c.head_dim + d;
            ASSERT_NEAR(twin[i], expected, 2e-5) << "row " << r << " dim " << d;
            ASSERT_NEAR(simd[i], twin[i], 2e-5)
                << isa_name(best_isa()) << " row " << r << " dim " << d;
        }
    }
}

std::string case_name(const testing::TestParamInfo<Case>& info) {
    const Case& c = info.param;
    return "dim" + std::to_string(c.head_dim) + "_positions" + std::to_string(c.positions) +
           "_rows" + std::to_string(c.rows) + "_window" + std::to_string(c.sliding) + "_cap" +
           std::to_string(static_cast<int>(c.softcap * 10));
}

class AttentionTest : public testing::TestWithParam<Case> {};

TEST_P(AttentionTest, TwinIsTheSoftmaxAndSimdIsTheTwin) {
    const Case c = GetParam();
    std::mt19937 random(static_cast<unsigned>(c.head_dim * 1000 + c.positions));
    const size_t stride = c.head_dim * 3 + 5;  // other heads' values in between
    const auto cache = half_cache(c.positions * stride, random);
    check_kernels<AttentionBlockFunction>(c, scalar::attention_block, attention_block(), cache,
                                          stride, 1, random);
}

// Q8_0 blocks run along the head, so its heads are whole blocks (every model's are but the
// tiny test models', which keep F16); the other heads between positions are too.
class AttentionQ8_0Test : public testing::TestWithParam<Case> {};

TEST_P(AttentionQ8_0Test, TwinIsTheSoftmaxAndSimdIsTheTwin) {
    const Case c = GetParam();
    std::mt19937 random(static_cast<unsigned>(c.head_dim * 1000 + c.positions + 7));
    const size_t stride = c.head_dim * 3 + kBlock32;
    const auto cache = q8_0_cache(c.positions * stride, random);
    check_kernels<AttentionBlockQ8_0Function>(
        c, scalar::attention_block_q8_0, attention_block_q8_0(), cache, stride, kBlock32, random);
}

INSTANTIATE_TEST_SUITE_P(Shapes, AttentionTest,
                         testing::Values(Case{8, 1, 1}, Case{64, 100, 2}, Case{64, 7, 5},
                                         Case{64, 64, 9}, Case{64, 200, 32}, Case{80, 65, 12},
                                         Case{100, 33, 3}, Case{128, 130, 8}, Case{256, 70, 4},
                                         Case{64, 200, 32, 32}, Case{64, 130, 9, 70},
                                         Case{256, 100, 6, 5}, Case{64, 100, 7, 0, 1.0f},
                                         Case{128, 150, 10, 40, 0.5f}),
                         case_name);

INSTANTIATE_TEST_SUITE_P(Shapes, AttentionQ8_0Test,
                         testing::Values(Case{32, 1, 1}, Case{32, 33, 4}, Case{64, 100, 2},
                                         Case{64, 7, 5}, Case{64, 200, 32}, Case{96, 97, 5},
                                         Case{128, 130, 8}, Case{160, 41, 7, 9}, Case{256, 70, 4},
                                         Case{64, 130, 9, 70}, Case{256, 31, 3, 0, 0.7f},
                                         Case{128, 150, 10, 40, 0.5f}),
                         case_name);

// A row's result must not depend on the rows beside it: batched decoding and speculative
// verification put a sequence's rows among others' and expect what it gets alone. The kernel
// reads a block as stored for a few rows and converts it for many; both must agree bit for bit.
template <typename Kernel, typename Element>
void check_row_alone(Kernel kernel, const Case& c, const Cache<Element>& cache, size_t stride,
                     std::mt19937& random) {
    const auto queries = random_floats(c.rows * c.head_dim, random, 2.0f);
    const std::vector<size_t> windows = row_windows(c);
    const auto together = attend(kernel, c, queries, cache.keys, cache.values, stride, windows);
    Case one = c;
    one.rows = 1;
    for (size_t r = 0; r < c.rows; ++r) {
        const std::vector<float> query(queries.begin() + r * c.head_dim,
                                       queries.begin() + (r + 1) * c.head_dim);
        const auto alone =
            attend(kernel, one, query, cache.keys, cache.values, stride, {windows[r]});
        for (size_t d = 0; d < c.head_dim; ++d) {
            ASSERT_EQ(alone[d], together[r * c.head_dim + d]) << "row " << r << " dim " << d;
        }
    }
}

TEST(Attention, ARowIsTheSameAloneAndAmongManyRows) {
    std::mt19937 random(11);
    for (const Case c : {Case{64, 130, 40}, Case{100, 70, 20, 30}, Case{128, 65, 5}}) {
        const size_t stride = c.head_dim * 2 + 3;
        check_row_alone(attention_block(), c, half_cache(c.positions * stride, random), stride,
                        random);
    }
    const Case c{96, 100, 24, 50};
    const size_t stride = c.head_dim * 2 + kBlock32;
    check_row_alone(attention_block_q8_0(), c, q8_0_cache(c.positions * stride, random),
                    stride / kBlock32, random);
}

#if defined(__x86_64__)
// The AVX-512 blocks do each lane's arithmetic in the AVX2 blocks' order, so a machine's rows
// give the same bits whichever of the two it runs, and the fixtures' checks of one hold for both.
template <typename Kernel, typename Element>
void check_same_bits(Kernel narrow, Kernel wide, const Case& c, const Cache<Element>& cache,
                     size_t stride, std::mt19937& random) {
    const auto queries = random_floats(c.rows * c.head_dim, random, 2.0f);
    const std::vector<size_t> windows = row_windows(c);
    const auto expected = attend(narrow, c, queries, cache.keys, cache.values, stride, windows);
    const auto got = attend(wide, c, queries, cache.keys, cache.values, stride, windows);
    for (size_t i = 0; i < expected.size(); ++i) {
        ASSERT_EQ(got[i], expected[i]) << "row " << i / c.head_dim << " dim " << i % c.head_dim;
    }
}

TEST(Attention, Avx512GivesTheAvx2Bits) {
    if (best_isa() < Isa::Avx512Vnni) {
        // Nothing to compare here; what such a CPU must get is never the AVX-512 blocks.
        EXPECT_NE(attention_block(best_isa()), avx512::attention_block);
        EXPECT_NE(attention_block_q8_0(best_isa()), avx512::attention_block_q8_0);
        return;
    }
    // The blocks compared below are the ones this machine runs.
    EXPECT_EQ(attention_block(best_isa()), avx512::attention_block);
    EXPECT_EQ(attention_block_q8_0(best_isa()), avx512::attention_block_q8_0);
    std::mt19937 random(23);
    // Heads of whole 16s, of 8s and with a remainder; a few rows (read as stored) and many
    // (converted); windows, caps, partial groups of positions.
    for (const Case c : {Case{64, 130, 3}, Case{64, 200, 32, 32}, Case{80, 65, 12},
                         Case{100, 33, 3}, Case{8, 5, 2}, Case{128, 150, 10, 40, 0.5f},
                         Case{256, 70, 4}, Case{96, 61, 17}, Case{100, 40, 20}}) {
        const size_t stride = c.head_dim * 3 + 5;
        check_same_bits(avx2::attention_block, avx512::attention_block, c,
                        half_cache(c.positions * stride, random), stride, random);
    }
    for (const Case c : {Case{64, 100, 2}, Case{96, 97, 5}, Case{128, 130, 20, 9},
                         Case{256, 31, 3, 0, 0.7f}, Case{32, 33, 40}}) {
        const size_t stride = c.head_dim * 3 + kBlock32;
        check_same_bits(avx2::attention_block_q8_0, avx512::attention_block_q8_0, c,
                        q8_0_cache(c.positions * stride, random), stride / kBlock32, random);
    }
}
#endif

TEST(Attention, BlocksFitTheScratch) {
    for (const size_t head_dim : {8, 64, 128, 129, 256}) {
        const size_t positions = attention_block_positions(head_dim);
        EXPECT_LE(2 * positions * head_dim, kAttentionScratch) << head_dim;
        EXPECT_LE(positions, 64u);
    }
}

}  // namespace
}  // namespace hearth::kernels
