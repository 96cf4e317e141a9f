// Strips: the repacked layout holds each row's bytes where strips.h says, unpacking gives the
// file's rows back, and every strip kernel this CPU runs equals its format's strip twin
// (scalar::dot_q4_0_offset and its IQ4 kin, scalar::dot_q3_k_fma) bit for bit for every (row,
// token), on awkward sizes, writing nothing past the strip's rows.
#include "kernels/strips.h"

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

constexpr TensorType kStripTypes[] = {TensorType::Q4_0, TensorType::IQ4_NL, TensorType::IQ4_XS,
                                      TensorType::Q3_K};

int id(TensorType type) {
    return static_cast<int>(type);
}

struct Matrix {
    TensorType type;
    size_t rows, columns, row_bytes;
    std::vector<std::byte> bytes;
    std::vector<std::byte> strips;

    const std::byte* row(size_t r) const { return bytes.data() + r * row_bytes; }
    const std::byte* strip(size_t s) const { return strips.data() + s * kStripRows * row_bytes; }
};

Matrix random_matrix(TensorType type, size_t rows, size_t columns, std::mt19937& random) {
    Matrix matrix{type, rows, columns, tensor_bytes(type, columns), {}, {}};
    matrix.bytes = random_weights(type, rows * columns, random);
    matrix.strips.resize(strip_count(rows) * kStripRows * matrix.row_bytes);
    repack_strips(id(type), matrix.bytes.data(), matrix.row_bytes, rows, columns,
                  matrix.strips.data());
    return matrix;
}

TEST(Strips, Q4_0AndIq4NlPutEachRowsBytesWhereTheLayoutSaysAndRepeatTheLastRow) {
    std::mt19937 random(7);
    for (const auto type : {TensorType::Q4_0, TensorType::IQ4_NL}) {
        const Matrix matrix = random_matrix(type, 21, 96, random);
        ASSERT_EQ(matrix.strips.size(), 2u * 3u * sizeof(StripBlock));
        const auto* strips = reinterpret_cast<const StripBlock*>(matrix.strips.data());
        for (size_t s = 0; s < 2; ++s) {
            for (size_t m = 0; m < kStripRows; ++m) {
                const size_t row = std::min<size_t>(s * kStripRows + m, 20);
                const auto* blocks = reinterpret_cast<const BlockQ4_0*>(matrix.row(row));
                for (size_t b = 0; b < 3; ++b) {
                    const StripBlock& block = strips[s * 3 + b];
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
}

TEST(Strips, Iq4XsPutsEachRowsBytesWhereTheLayoutSays) {
    std::mt19937 random(17);
    const Matrix matrix = random_matrix(TensorType::IQ4_XS, 19, 512, random);
    const auto* strips = reinterpret_cast<const StripSuperBlock*>(matrix.strips.data());
    for (size_t s = 0; s < 2; ++s) {
        for (size_t m = 0; m < kStripRows; ++m) {
            const size_t row = std::min<size_t>(s * kStripRows + m, 18);
            const auto* blocks = reinterpret_cast<const BlockIQ4_XS*>(matrix.row(row));
            for (size_t b = 0; b < 2; ++b) {
                const StripSuperBlock& block = strips[s * 2 + b];
                EXPECT_EQ(block.scales[m], blocks[b].scale);
                EXPECT_EQ(block.scales_high[m], blocks[b].scales_high);
                EXPECT_EQ(std::memcmp(&block.scales_low[m], blocks[b].scales_low, 4), 0);
                for (size_t j = 0; j < 8; ++j) {
                    for (size_t q = 0; q < 4; ++q) {
                        EXPECT_EQ(std::memcmp(block.nibbles[j][q][m],
                                              blocks[b].quants + 16 * j + 4 * q, 4),
                                  0)
                            << "strip " << s << " row " << m << " super-block " << b
                            << " sub-block " << j << " quad " << q;
                    }
                }
            }
        }
    }
}

// Read back from the strip by the layout's own description (strips.h), each row's Q3_K values
// and 6-bit scales are the file's.
TEST(Strips, Q3KPutsEachRowsValuesAndScalesWhereTheLayoutSays) {
    std::mt19937 random(23);
    const Matrix matrix = random_matrix(TensorType::Q3_K, 19, 512, random);
    const auto* strips = reinterpret_cast<const StripQ3KSuperBlock*>(matrix.strips.data());
    for (size_t s = 0; s < 2; ++s) {
        for (size_t m = 0; m < kStripRows; ++m) {
            const size_t row = std::min<size_t>(s * kStripRows + m, 18);
            const auto* blocks = reinterpret_cast<const BlockQ3_K*>(matrix.row(row));
            for (size_t b = 0; b < 2; ++b) {
                const StripQ3KSuperBlock& block = strips[s * 2 + b];
                const BlockQ3_K& file = blocks[b];
                EXPECT_EQ(block.scales[m], file.scale);
                for (int j = 0; j < 16; ++j) {
                    const int low = block.scales_low[j / 2][m] >> (4 * (j % 2)) & 0x0f;
                    uint64_t tops;
                    std::memcpy(&tops, block.scales_high[j / 2], sizeof tops);
                    const int top = static_cast<int>(tops >> (4 * m + 2 * (j % 2)) & 3);
                    EXPECT_EQ((low | top << 4) - 32, unpack_scale_q3_k(j, file.scales))
                        << "strip " << s << " row " << m << " super-block " << b << " scale " << j;
                }
                for (int i = 0; i < 256; ++i) {
                    const StripQ3KSubBlock& sub = block.sub_blocks[i / 16];
                    const int quad = i % 16 / 4;
                    const size_t position = 4 * m + static_cast<size_t>(i % 4);
                    const int pair = sub.pairs[position] >> (2 * quad) & 3;
                    const int high = sub.high[position % 32] >> (quad + 4 * (position / 32)) & 1;
                    EXPECT_EQ(pair + 4 * high - 4, q3_k_value(file, i))
                        << "strip " << s << " row " << m << " super-block " << b << " element "
                        << i;
                }
            }
        }
    }
}

TEST(Strips, UnpackingGivesBackTheFilesRowsFromAnyStrip) {
    std::mt19937 random(8);
    for (const auto type : kStripTypes) {
        const Matrix matrix = random_matrix(type, 48, 768, random);
        for (const size_t first : {0, 16, 32, 35}) {
            for (const size_t count : {1, 5, 13}) {
                std::vector<std::byte> rows(count * matrix.row_bytes);
                unpack_strips(id(type), matrix.strips.data(), matrix.columns, first, count,
                              rows.data());
                EXPECT_EQ(std::memcmp(rows.data(), matrix.row(first), rows.size()), 0)
                    << tensor_type_info(type).name << ": " << count << " rows from " << first;
            }
        }
    }
}

TEST(Strips, OnlyQ4_0Iq4NlIq4XsAndQ3KHaveTheLayout) {
    for (int type = 0; type < DotTable::kTypes; ++type) {
        const bool expected = type == kQ4_0 || type == kIQ4_NL || type == kIQ4_XS || type == kQ3_K;
        EXPECT_EQ(has_strip_layout(type), expected) << "type " << type;
        EXPECT_EQ(strip_twin(type) != nullptr, expected) << "type " << type;
        EXPECT_EQ(strip_rows(type, Isa::Avx512Vnni) != nullptr,
                  expected && best_isa() >= Isa::Avx512Vnni)
            << "type " << type;
    }
    EXPECT_THROW(repack_strips(kQ8_0, nullptr, 34, 0, 32, nullptr), std::invalid_argument);
}

TEST(Strips, OnlyAvx512VnniAndAboveHaveAStripKernel) {
    for (const auto type : kStripTypes) {
        EXPECT_EQ(strip_rows(id(type), Isa::Scalar), nullptr);
        EXPECT_EQ(strip_rows(id(type), Isa::Avx2), nullptr);
        EXPECT_EQ(strip_rows_vnni(id(type)) != nullptr, best_isa() >= Isa::Avx512Vnni);
    }
    EXPECT_EQ(strip_rows_amx(kIQ4_NL), nullptr);
    EXPECT_EQ(strip_rows_amx(kIQ4_XS), nullptr);
    EXPECT_EQ(strip_rows_amx(kQ3_K), nullptr);
}

TEST(Strips, Q3KReadsItsActivationsPerSuperBlockAndTheRestPerBlock) {
    EXPECT_EQ(strip_activation_format(kQ3_K), ActivationFormat::Q8K);
    for (const int type : {kQ4_0, kIQ4_NL, kIQ4_XS})
        EXPECT_EQ(strip_activation_format(type), ActivationFormat::Q8Offset) << "type " << type;
}

struct Kernel {
    std::string name;
    TensorType type;
    StripRowsFunction (*get)(int type);
    // What strip_rows hands out on a CPU without this kernel (for "best" itself: what stands
    // behind it, which must then be missing too).
    StripRowsFunction (*instead)(int type);
};

StripRowsFunction none(int) {
    return nullptr;
}

StripRowsFunction best(int type) {
    return strip_rows(type, best_isa());
}

void PrintTo(const Kernel& kernel, std::ostream* out) {
    *out << kernel.name;
}

class StripKernelTest : public testing::TestWithParam<Kernel> {};

// Every strip of matrices whose last strip is partial, for token counts that fill and miss the
// kernels' passes (VNNI's eight, AMX's sixteen, and ten, where the best kernel turns to AMX).
TEST_P(StripKernelTest, EveryRowAndTokenEqualsTheTwinBitForBit) {
    const auto type = GetParam().type;
    const StripRowsFunction kernel = GetParam().get(id(type));
    // A CPU without the kernel: what strip_rows hands out must not be it, nor lean on it.
    if (kernel == nullptr) {
        EXPECT_EQ(strip_rows(id(type), best_isa()), GetParam().instead(id(type)))
            << "without the " << GetParam().name << " kernel";
        return;
    }
    const DotFunction twin = strip_twin(id(type));
    const size_t block = static_cast<size_t>(tensor_type_info(type).block_elements);
    std::mt19937 random(99);
    for (const size_t blocks : {1, 5, 18, 65}) {
        const size_t columns = block * blocks;
        if (columns > 8192) continue;
        const Matrix matrix = random_matrix(type, 40, columns, random);
        constexpr size_t kMostTokens = 33;
        const ActivationFormat format = strip_activation_format(id(type));
        const size_t stride = activation_row_bytes(format, columns);
        std::vector<std::byte> activations(stride * kMostTokens);
        for (size_t t = 0; t < kMostTokens; ++t) {
            const auto values = random_floats(columns, random);
            prepare_activations(format, values.data(), &activations[t * stride], columns);
        }
        for (const size_t tokens : {1, 2, 3, 4, 5, 7, 8, 9, 10, 15, 16, 17, 33}) {
            // One column past the rows, to catch a write past a partial strip.
            const size_t out_stride = matrix.rows + 1;
            std::vector<float> out(out_stride * tokens, -1234.5f);
            for (size_t s = 0; s < strip_count(matrix.rows); ++s) {
                const size_t rows = std::min(kStripRows, matrix.rows - s * kStripRows);
                kernel(matrix.strip(s), rows, activations.data(), stride, tokens,
                       &out[s * kStripRows], out_stride, columns);
            }
            for (size_t t = 0; t < tokens; ++t) {
                for (size_t r = 0; r < matrix.rows; ++r) {
                    const float want = twin(matrix.row(r), &activations[t * stride], columns);
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

// Element i of a row of activations, as its blocks hold it.
double activation_value(ActivationFormat format, const std::byte* row, size_t i) {
    if (format == ActivationFormat::Q8K) {
        const auto& block = reinterpret_cast<const BlockQ8K*>(row)[i / 256];
        return static_cast<double>(block.scale) * block.quants[i % 256];
    }
    const auto& block = reinterpret_cast<const BlockQ8Offset*>(row)[i / 32];
    return static_cast<double>(block.scale) * block.quants[i % 32];
}

// The twins themselves: each is the row's dequantised values against the activations' (as their
// blocks hold them) to float rounding, so a kernel that equals its twin computes the product.
TEST(Strips, EachTwinIsTheProductOfTheDequantisedRowAndTheActivations) {
    std::mt19937 random(5);
    for (const auto type : kStripTypes) {
        const size_t columns = 1024;
        const auto bytes = random_weights(type, columns, random);
        std::vector<float> weights(columns);
        dequantize(type, bytes.data(), weights.data(), columns);
        const auto values = random_floats(columns, random);
        const ActivationFormat format = strip_activation_format(id(type));
        std::vector<std::byte> activations(activation_row_bytes(format, columns));
        prepare_activations(format, values.data(), activations.data(), columns);
        double exact = 0.0, magnitude = 0.0;
        for (size_t i = 0; i < columns; ++i) {
            const double product =
                static_cast<double>(weights[i]) * activation_value(format, activations.data(), i);
            exact += product;
            magnitude += std::abs(product);
        }
        const float got = strip_twin(id(type))(bytes.data(), activations.data(), columns);
        EXPECT_NEAR(got, exact, magnitude * 1e-6) << tensor_type_info(type).name;
    }
}

INSTANTIATE_TEST_SUITE_P(
    Kernels, StripKernelTest,
    testing::Values(Kernel{"q4_0_vnni", TensorType::Q4_0, strip_rows_vnni, none},
                    Kernel{"q4_0_amx", TensorType::Q4_0, strip_rows_amx, strip_rows_vnni},
                    Kernel{"q4_0_best", TensorType::Q4_0, best, strip_rows_vnni},
                    Kernel{"iq4_nl_vnni", TensorType::IQ4_NL, strip_rows_vnni, none},
                    Kernel{"iq4_nl_best", TensorType::IQ4_NL, best, strip_rows_vnni},
                    Kernel{"iq4_xs_vnni", TensorType::IQ4_XS, strip_rows_vnni, none},
                    Kernel{"iq4_xs_best", TensorType::IQ4_XS, best, strip_rows_vnni},
                    Kernel{"q3_k_vnni", TensorType::Q3_K, strip_rows_vnni, none},
                    Kernel{"q3_k_best", TensorType::Q3_K, best, strip_rows_vnni}),
    [](const testing::TestParamInfo<Kernel>& info) { return info.param.name; });

}  // namespace
}  // namespace hearth::kernels
