// The panel products: the SIMD pack against the plain one byte for byte, every scalar twin
// against a double-precision product of the dequantised weights and the panel's activations,
// and the machine's kernels against their twins, on awkward numbers of rows, tokens and columns.
#include "kernels/gemm.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "engine/format/tensor_types.h"
#include "kernels/activation_blocks.h"
#include "tests/support/random_weights.h"

namespace hearth::kernels {
namespace {

struct Panel {
    std::vector<PanelBlock> blocks;
    Panel(const std::vector<float>& x, size_t tokens, size_t columns, PackFunction pack)
        : blocks(panel_blocks(tokens, columns)) {
        pack(x.data(), tokens, columns, blocks.data(), 0, blocks.size());
    }
    // What token t's activation `column` stands for after quantisation.
    double value(size_t t, size_t column, size_t columns) const {
        const PanelBlock& b = blocks[t / kPanelTokens * (columns / 32) + column / 32];
        const size_t lane = t % kPanelTokens, i = column % 32;
        return static_cast<double>(b.scale[lane]) * b.quads[i / 4][lane][i % 4];
    }
};

std::vector<float> activations(size_t tokens, size_t columns, std::mt19937& random) {
    auto x = random_floats(tokens * columns, random);
    // An all-zero block (scale 0) and a huge one: the pack's edge cases.
    std::fill(x.begin(), x.begin() + 32, 0.0f);
    if (x.size() > 64) x[40] = 1e4f;
    return x;
}

// The pack the machine's panel kernels use (the AVX-512 one here; Gemm.TheMachinesKernelsAreInUse
// checks that it is in use) against the plain one.
TEST(TokenPanel, SimdPackMatchesThePlainPackBitForBit) {
    const GemmTable* table = gemm_table();
    const PackFunction pack = table != nullptr ? table->pack : pack_panel;
    std::mt19937 random(7);
    for (const size_t tokens : {1, 15, 16, 17, 40}) {
        for (const size_t columns : {32, 96, 288}) {
            const auto x = activations(tokens, columns, random);
            const Panel plain(x, tokens, columns, pack_panel);
            const Panel simd(x, tokens, columns, pack);
            ASSERT_EQ(std::memcmp(plain.blocks.data(), simd.blocks.data(),
                                  plain.blocks.size() * sizeof(PanelBlock)),
                      0)
                << tokens << " tokens × " << columns;
        }
    }
}

TEST(TokenPanel, PacksWhatQuantizeRowQ8Makes) {
    std::mt19937 random(8);
    const size_t tokens = 19, columns = 64;
    const auto x = activations(tokens, columns, random);
    const Panel panel(x, tokens, columns, pack_panel);
    for (size_t t = 0; t < tokens; ++t) {
        for (size_t block = 0; block < columns / 32; ++block) {
            BlockQ8 expected;
            quantize_row_q8(&x[t * columns + block * 32], &expected, 32);
            for (size_t i = 0; i < 32; ++i) {
                ASSERT_EQ(panel.value(t, block * 32 + i, columns),
                          static_cast<double>(expected.scale) * expected.quants[i])
                    << "token " << t << ", column " << block * 32 + i;
            }
        }
    }
    // Padding lanes of the last group stand for zero.
    EXPECT_EQ(panel.value(tokens, 3, columns), 0.0);
}

struct GemmCase {
    TensorType type;
    std::vector<size_t> columns;
};

class GemmTest : public testing::TestWithParam<GemmCase> {};

TEST_P(GemmTest, TwinEqualsTheDequantisedProductAndSimdEqualsTheTwin) {
    const TensorType type = GetParam().type;
    const auto id = static_cast<uint32_t>(type);
    const GemmTable* best = gemm_table();
    std::mt19937 random(31 + id);
    for (const size_t columns : GetParam().columns) {
        for (const size_t rows : {1, 5, 17, 33}) {
            for (const size_t tokens : {1, 7, 16, 17, 50, 70}) {
                const size_t row_bytes = tensor_bytes(type, columns);
                const auto weights = random_weights(type, rows * columns, random);
                const auto x = activations(tokens, columns, random);
                const Panel panel(x, tokens, columns, pack_panel);
                const size_t stride = rows + 3;  // outputs land in a wider matrix
                std::vector<float> twin(tokens * stride, -1.0f), simd = twin;
                scalar_gemm_table().gemm[id](weights.data(), row_bytes, rows, panel.blocks.data(),
                                             tokens, columns, twin.data(), stride);
                if (best != nullptr) {
                    best->gemm[id](weights.data(), row_bytes, rows, panel.blocks.data(), tokens,
                                   columns, simd.data(), stride);
                }
                std::vector<float> w(columns);
                for (size_t r = 0; r < rows; ++r) {
                    dequantize(type, weights.data() + r * row_bytes, w.data(), columns);
                    for (size_t t = 0; t < tokens; ++t) {
                        double expected = 0.0, magnitude = 0.0;
                        for (size_t c = 0; c < columns; ++c) {
                            const double term = w[c] * panel.value(t, c, columns);
                            expected += term;
                            magnitude += std::fabs(term);
                        }
                        const float got = twin[t * stride + r];
                        ASSERT_NEAR(got, expected, 1e-5 * magnitude + 1e-6)
                            << tensor_type_name(id) << " row " << r << " token " << t << " of "
                            << rows << "×" << columns << ", " << tokens << " tokens";
                        if (best == nullptr) continue;
                        ASSERT_NEAR(simd[t * stride + r], got, 1e-5 * magnitude + 1e-6)
                            << best->name << " " << tensor_type_name(id) << " row " << r
                            << " token " << t << " of " << rows << "×" << columns << ", " << tokens
                            << " tokens";
                    }
                }
                // Nothing outside the rows × tokens it was given is written.
                for (size_t t = 0; t < tokens; ++t) {
                    for (size_t r = rows; r < stride; ++r) {
                        ASSERT_EQ(twin[t * stride + r], -1.0f);
                        if (best != nullptr) {
                            ASSERT_EQ(simd[t * stride + r], -1.0f);
                        }
                    }
                }
            }
        }
    }
}

INSTANTIATE_TEST_SUITE_P(
    PanelFormats, GemmTest,
    testing::Values(
        GemmCase{TensorType::Q4_0, {32, 96, 544}}, GemmCase{TensorType::Q5_0, {32, 96, 544}},
        GemmCase{TensorType::Q8_0, {32, 96, 544}}, GemmCase{TensorType::Q3_K, {256, 768}},
        GemmCase{TensorType::Q4_K, {256, 768}}, GemmCase{TensorType::Q5_K, {256, 768}},
        GemmCase{TensorType::Q6_K, {256, 768}}, GemmCase{TensorType::MXFP4, {32, 96, 544}},
        GemmCase{TensorType::IQ4_NL, {32, 96, 544}}, GemmCase{TensorType::IQ4_XS, {256, 768}}),
    [](const auto& info) { return tensor_type_name(static_cast<uint32_t>(info.param.type)); });

TEST(Gemm, TheMachinesKernelsAreInUse) {
    // These machines have AVX-512 VNNI (env notes); a build that lost the kernels is a bug.
    __builtin_cpu_init();
    const bool vnni = __builtin_cpu_supports("avx512vnni") && __builtin_cpu_supports("avx512bw") &&
                      __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512vbmi") &&
                      __builtin_cpu_supports("gfni") && __builtin_cpu_supports("avx512bitalg");
    EXPECT_EQ(gemm_table() != nullptr, vnni);
}

}  // namespace
}  // namespace hearth::kernels
