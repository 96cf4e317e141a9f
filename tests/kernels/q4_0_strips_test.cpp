// Q4_0 strips: the repacked layout holds each row's bytes where q4_0_strips.h says, and every
// strip kernel this CPU runs equals the row kernels' scalar twin (scalar::dot_q4_0_offset) bit
// for bit for every (row, token), on awkward sizes, writing nothing past the strip's rows.
#include "kernels/q4_0_strips.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>

#include "engine/format/tensor_types.h"
#include "kernels/activation_blocks.h"
#include "kernels/dot_variants.h"
#include "kernels/quant_blocks.h"
#include "tests/support/random_weights.h"

namespace hearth::kernels {
namespace {

struct Matrix {
    size_t rows, columns, row_bytes;
    std::vector<std::byte> bytes;
    std::vector<StripBlock> strips;
};

Matrix random_matrix(size_t rows, size_t columns, std::mt19937& random) {
    Matrix matrix{rows, columns, tensor_bytes(TensorType::Q4_0, columns), {}, {}};
    matrix.bytes = random_weights(TensorType::Q4_0, rows * columns, random);
    matrix.strips.resize(strip_count(rows) * strip_blocks(columns));
    repack_q4_0_strips(matrix.bytes.data(), matrix.row_bytes, rows, columns, matrix.strips.data());
    return matrix;
}

TEST(Q4_0Strips, RepackingPutsEachRowsBytesWhereTheLayoutSaysAndRepeatsTheLastRow) {
    std::mt19937 random(7);
    const Matrix matrix = random_matrix(21, 96, random);
    ASSERT_EQ(matrix.strips.size(), 2u * 3u);
    for (size_t s = 0; s < 2; ++s) {
        for (size_t m = 0; m < kStripRows; ++m) {
            const size_t row = std::min<size_t>(s * kStripRows + m, 20);
            const auto* blocks =
                reinterpret_cast<const BlockQ4_0*>(matrix.bytes.data() + row * matrix.row_bytes);
            for (size_t b = 0; b < 3; ++b) {
                const StripBlock& block = matrix.strips[s * 3 + b];
                EXPECT_EQ(block.scales[m], blocks[b].scale) << "strip " << s << " row " << m;
                for (size_t q = 0; q < 4; ++q) {
                    for (size_t i = 0; i < 4; ++i) {
                        EXPECT_EQ(block.nibbles[q][m][i], blocks[b].quants[4 * q + i])
                            << "strip " << s << " row " << m << " block " << b << " byte "
                            << 4 * q + i;
                    }
                }
            }
        }
    }
}

TEST(Q4_0Strips, UnpackingGivesBackTheFilesRowsFromAnyStrip) {
    std::mt19937 random(8);
    const Matrix matrix = random_matrix(48, 160, random);
    for (const size_t first : {0, 16, 32}) {
        for (const size_t count : {1, 5, 16}) {
            std::vector<std::byte> rows(count * matrix.row_bytes);
            unpack_q4_0_strips(matrix.strips.data(), matrix.columns, first, count, rows.data());
            EXPECT_EQ(std::memcmp(rows.data(), matrix.bytes.data() + first * matrix.row_bytes,
                                  rows.size()),
                      0)
                << count << " rows from " << first;
        }
    }
}

TEST(Q4_0Strips, OnlyAvx512VnniAndAboveHaveAStripKernel) {
    EXPECT_EQ(q4_0_strip_rows(Isa::Scalar), nullptr);
    EXPECT_EQ(q4_0_strip_rows(Isa::Avx2), nullptr);
    EXPECT_EQ(q4_0_strip_rows(Isa::Avx512Vnni) != nullptr, best_isa() >= Isa::Avx512Vnni);
    EXPECT_EQ(q4_0_strip_rows_vnni() != nullptr, best_isa() >= Isa::Avx512Vnni);
}

struct Kernel {
    std::string name;
    StripRowsFunction (*get)();
    // What q4_0_strip_rows hands out on a CPU without this kernel (for "best" itself: what
    // stands behind it, which must then be missing too).
    StripRowsFunction (*instead)();
};

StripRowsFunction none() {
    return nullptr;
}

void PrintTo(const Kernel& kernel, std::ostream* out) {
    *out << kernel.name;
}

class StripKernelTest : public testing::TestWithParam<Kernel> {};

// Every strip of matrices whose last strip is partial, for token counts that fill and miss the
// kernels' passes (VNNI's eight, AMX's sixteen, and ten, where the best kernel turns to AMX).
TEST_P(StripKernelTest, EveryRowAndTokenEqualsTheRowTwinBitForBit) {
    const StripRowsFunction kernel = GetParam().get();
    // A CPU without the kernel: what q4_0_strip_rows hands out must not be it, nor lean on it.
    if (kernel == nullptr) {
        EXPECT_EQ(q4_0_strip_rows(best_isa()), GetParam().instead())
            << "without the " << GetParam().name << " kernel";
        return;
    }
    std::mt19937 random(99);
    for (const size_t columns : {32, 160, 576, 2080}) {
        const Matrix matrix = random_matrix(40, columns, random);
        constexpr size_t kMostTokens = 33;
        const size_t stride = activation_row_bytes(ActivationFormat::Q8Offset, columns);
        std::vector<std::byte> activations(stride * kMostTokens);
        for (size_t t = 0; t < kMostTokens; ++t) {
            const auto values = random_floats(columns, random);
            prepare_activations(ActivationFormat::Q8Offset, values.data(), &activations[t * stride],
                                columns);
        }
        for (const size_t tokens : {1, 2, 3, 4, 5, 7, 8, 9, 10, 15, 16, 17, 33}) {
            // One column past the rows, to catch a write past a partial strip.
            const size_t out_stride = matrix.rows + 1;
            std::vector<float> out(out_stride * tokens, -1234.5f);
            for (size_t s = 0; s < strip_count(matrix.rows); ++s) {
                const size_t rows = std::min(kStripRows, matrix.rows - s * kStripRows);
                kernel(&matrix.strips[s * strip_blocks(columns)], rows, activations.data(), stride,
                       tokens, &out[s * kStripRows], out_stride, columns);
            }
            for (size_t t = 0; t < tokens; ++t) {
                for (size_t r = 0; r < matrix.rows; ++r) {
                    const float want =
                        scalar::dot_q4_0_offset(matrix.bytes.data() + r * matrix.row_bytes,
                                                &activations[t * stride], columns);
                    const float got = out[t * out_stride + r];
                    ASSERT_EQ(std::memcmp(&want, &got, sizeof want), 0)
                        << GetParam().name << ": " << columns << " columns, " << tokens
                        << " tokens, token " << t << " row " << r << ": " << got << " vs " << want;
                }
                EXPECT_EQ(out[t * out_stride + matrix.rows], -1234.5f)
                    << "written past the rows, " << tokens << " tokens";
            }
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Kernels, StripKernelTest,
                         testing::Values(Kernel{"vnni", q4_0_strip_rows_vnni, none},
                                         Kernel{"amx", q4_0_strip_rows_amx, q4_0_strip_rows_vnni},
                                         Kernel{"best", [] { return q4_0_strip_rows(best_isa()); },
                                                q4_0_strip_rows_vnni}),
                         [](const testing::TestParamInfo<Kernel>& info) {
                             return info.param.name;
                         });

}  // namespace
}  // namespace hearth::kernels
