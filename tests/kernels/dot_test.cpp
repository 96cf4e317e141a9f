// Every dot kernel against its scalar twin, and every scalar twin against a double-precision
// product of the dequantised operands, on random data of awkward sizes; every many-token dot
// against its table's single-token one, bit for bit.
#include "kernels/dot.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

#include "engine/format/tensor_types.h"
#include "kernels/activation_blocks.h"
#include "kernels/dot_many.h"
#include "kernels/half.h"
#include "kernels/quant_blocks.h"
#include "kernels/quantize.h"
#include "tests/support/random_weights.h"

namespace hearth::kernels {
namespace {

// What the activations stand for after quantisation, so the reference sees the same inputs.
std::vector<float> dequantized_activations(ActivationFormat format,
                                           const std::vector<std::byte>& prepared, size_t n,
                                           const std::vector<float>& original) {
    std::vector<float> values(n);
    if (format == ActivationFormat::F32) return original;
    if (format == ActivationFormat::Q8) {
        const auto* blocks = reinterpret_cast<const BlockQ8*>(prepared.data());
        for (size_t i = 0; i < n; ++i)
            values[i] = blocks[i / 32].scale * blocks[i / 32].quants[i % 32];
    } else if (format == ActivationFormat::Q8Offset) {
        const auto* blocks = reinterpret_cast<const BlockQ8Offset*>(prepared.data());
        for (size_t i = 0; i < n; ++i)
            values[i] = blocks[i / 32].scale * blocks[i / 32].quants[i % 32];
    } else if (format == ActivationFormat::Q4_0Lanes) {
        const auto* groups = reinterpret_cast<const LaneGroup*>(prepared.data());
        for (size_t i = 0; i < n; ++i) {
            const auto& group = groups[i / 256];
            const size_t k = i / 32 % 8;
            const LanePlace place = lane_place(k, i % 32);
            values[i] = group.scales[2 * k] * group.quants[place.vector][place.at];
        }
    } else {
        const auto* blocks = reinterpret_cast<const BlockQ8K*>(prepared.data());
        for (size_t i = 0; i < n; ++i)
            values[i] = blocks[i / 256].scale * blocks[i / 256].quants[i % 256];
    }
    return values;
}

const TensorType kTypes[] = {
    TensorType::F32,  TensorType::F16,    TensorType::BF16,   TensorType::Q8_0,
    TensorType::Q4_0, TensorType::Q4_1,   TensorType::Q5_0,   TensorType::Q5_1,
    TensorType::Q2_K, TensorType::Q3_K,   TensorType::Q4_K,   TensorType::Q5_K,
    TensorType::Q6_K, TensorType::IQ4_NL, TensorType::IQ4_XS, TensorType::MXFP4};

// The elements of a format's shortest row: a whole block of it and of the activations it meets.
size_t row_unit(TensorType type) {
    const auto id = static_cast<uint32_t>(type);
    const size_t block = static_cast<size_t>(tensor_type_info(type).block_elements);
    return std::max<size_t>(block,
                            dot_table(Isa::Scalar).format[id] == ActivationFormat::Q8K ? 256 : 32);
}

// Float formats take rows of any length.
bool any_length(TensorType type) {
    return tensor_type_info(type).block_elements == 1;
}

class DotTest : public testing::TestWithParam<TensorType> {};

// Every ISA level this CPU runs: each kernel against its scalar twin in the activation format
// it reads, and each twin against the exact product of what it was given.
TEST_P(DotTest, ScalarTwinEqualsTheDequantisedProductAndSimdEqualsTheTwin) {
    const TensorType type = GetParam();
    const auto id = static_cast<uint32_t>(type);
    std::mt19937 random(1234 + id);
    // Eight-block kernels get whole groups of eight, tails, and both.
    for (const size_t blocks : {1, 3, 7, 13, 16, 21}) {
        const size_t n = blocks * row_unit(type) + (any_length(type) ? blocks % 3 : 0);
        const auto weights = random_weights(type, n, random);
        const auto x = random_floats(n, random);
        std::vector<float> w(n);
        dequantize(type, weights.data(), w.data(), n);
        for (const Isa isa : {Isa::Scalar, Isa::Avx2, Isa::Avx512Vnni}) {
            if (isa > best_isa()) continue;
            const auto& table = dot_table(isa);
            const auto format = table.format[id];
            std::vector<std::byte> prepared(activation_row_bytes(format, n));
            prepare_activations(format, x.data(), prepared.data(), n);
            const auto a = dequantized_activations(format, prepared, n, x);
            double expected = 0.0, magnitude = 0.0;
            for (size_t i = 0; i < n; ++i) {
                expected += static_cast<double>(w[i]) * a[i];
                magnitude += std::fabs(static_cast<double>(w[i]) * a[i]);
            }
            const float twin =
                scalar_twin(table, static_cast<int>(id))(weights.data(), prepared.data(), n);
            EXPECT_NEAR(twin, expected, 1e-5 * magnitude + 1e-6)
                << tensor_type_name(id) << " n=" << n;
            const float simd = table.dot[id](weights.data(), prepared.data(), n);
            EXPECT_NEAR(simd, twin, 1e-5 * magnitude + 1e-6)
                << tensor_type_name(id) << " n=" << n << " on " << isa_name(isa);
        }
    }
}

// A batch's rows never change each other's results: every token count from one to two whole
// groups and one more (each group size and remainder), 64 bytes between activation rows and a
// gap of two between results, so a kernel that reads or writes by the wrong stride shows.
TEST_P(DotTest, ManyTokensGiveEachTokenItsSingleDotBitForBit) {
    const TensorType type = GetParam();
    const auto id = static_cast<uint32_t>(type);
    constexpr size_t kMostTokens = 2 * kTokenGroup + 1, kRowPadding = 64, kOutStride = 3;
    std::mt19937 random(4321 + id);
    // One block, odd counts (the two-block kernels' tail) and a TinyLlama row (2048).
    for (const size_t blocks : {size_t{1}, size_t{3}, size_t{7}, 2048 / row_unit(type)}) {
        const size_t n = blocks * row_unit(type) + (any_length(type) ? 5 : 0);
        const auto weights = random_weights(type, n, random);
        for (const Isa isa : {Isa::Scalar, Isa::Avx2, Isa::Avx512Vnni}) {
            if (isa > best_isa()) continue;
            const auto& table = dot_table(isa);
            ASSERT_NE(table.dot_many[id], nullptr) << tensor_type_name(id);
            const auto format = table.format[id];
            const size_t stride = activation_row_bytes(format, n) + kRowPadding;
            std::vector<std::byte> activations(stride * kMostTokens);
            for (size_t t = 0; t < kMostTokens; ++t) {
                prepare_activations(format, random_floats(n, random).data(),
                                    activations.data() + t * stride, n);
            }
            for (size_t tokens = 1; tokens <= kMostTokens; ++tokens) {
                std::vector<float> out(tokens * kOutStride, -1.0f);
                table.dot_many[id](weights.data(), activations.data(), stride, tokens, out.data(),
                                   kOutStride, n);
                for (size_t t = 0; t < tokens; ++t) {
                    const float single =
                        table.dot[id](weights.data(), activations.data() + t * stride, n);
                    EXPECT_EQ(std::memcmp(&out[t * kOutStride], &single, sizeof single), 0)
                        << tensor_type_name(id) << " on " << isa_name(isa) << ", n=" << n
                        << ", token " << t << " of " << tokens << ": " << out[t * kOutStride]
                        << " != " << single;
                    EXPECT_EQ(out[t * kOutStride + 1], -1.0f) << "wrote between results";
                }
            }
        }
    }
}

// Row kernels: every (row, token) of a product equals the table's single dot bit for bit, and
// that dot its scalar twin, whether the row sits in a whole group of eight or in the partial
// last one, for every token count up to two whole passes and more. Rows are laid out 18 bytes
// further apart than they are long and results 3 apart, so a wrong stride shows.
TEST_P(DotTest, RowKernelsGiveEachRowAndTokenItsSingleDotBitForBit) {
    const TensorType type = GetParam();
    const auto id = static_cast<uint32_t>(type);
    constexpr size_t kRows = 2 * kDotRows + 3, kMostTokens = 2 * kTokenGroup + 1, kRowGap = 18,
                     kOutStride = 3;
    std::mt19937 random(2468 + id);
    for (const Isa isa : {Isa::Scalar, Isa::Avx2, Isa::Avx512Vnni}) {
        if (isa > best_isa()) continue;
        const auto& table = dot_table(isa);
        if (table.dot_rows[id] == nullptr) continue;
        // 20 and 24 units: two whole groups of eight blocks and a partial one, and three whole.
        for (const size_t blocks :
             {size_t{1}, size_t{3}, size_t{20}, size_t{24}, 2048 / row_unit(type)}) {
            const size_t n = blocks * row_unit(type);
            const size_t row_bytes = tensor_bytes(type, n) + kRowGap;
            std::vector<std::byte> weights(kRows * row_bytes);
            for (size_t r = 0; r < kRows; ++r) {
                const auto row = random_weights(type, n, random);
                std::memcpy(&weights[r * row_bytes], row.data(), row.size());
            }
            const auto format = table.format[id];
            const size_t stride = activation_row_bytes(format, n);
            std::vector<std::byte> activations(stride * kMostTokens);
            for (size_t t = 0; t < kMostTokens; ++t) {
                prepare_activations(format, random_floats(n, random).data(),
                                    activations.data() + t * stride, n);
            }
            for (size_t tokens = 1; tokens <= kMostTokens; ++tokens) {
                const size_t out_rows = kRows * kOutStride;
                std::vector<float> out(tokens * out_rows, -1.0f);
                for (size_t first = 0; first < kRows; first += kDotRows) {
                    // Every third output: row r of token t at out[t * out_rows + 3r].
                    std::vector<float> group(tokens * kDotRows, -1.0f);
                    const size_t rows = std::min(kDotRows, kRows - first);
                    table.dot_rows[id](&weights[first * row_bytes], row_bytes, rows,
                                       activations.data(), stride, tokens, group.data(), kDotRows,
                                       n);
                    for (size_t t = 0; t < tokens; ++t) {
                        for (size_t r = 0; r < kDotRows; ++r) {
                            if (r >= rows) {
                                EXPECT_EQ(group[t * kDotRows + r], -1.0f) << "wrote past rows";
                                continue;
                            }
                            out[t * out_rows + (first + r) * kOutStride] = group[t * kDotRows + r];
                        }
                    }
                }
                for (size_t t = 0; t < tokens; ++t) {
                    for (size_t r = 0; r < kRows; ++r) {
                        const std::byte* row = &weights[r * row_bytes];
                        const std::byte* token = activations.data() + t * stride;
                        const float single = table.dot[id](row, token, n);
                        const float twin = scalar_twin(table, static_cast<int>(id))(row, token, n);
                        const float batched = out[t * out_rows + r * kOutStride];
                        EXPECT_EQ(std::memcmp(&batched, &single, sizeof single), 0)
                            << tensor_type_name(id) << " on " << isa_name(isa) << ", n=" << n
                            << ", row " << r << ", token " << t << " of " << tokens << ": "
                            << batched << " != " << single;
                        EXPECT_EQ(std::memcmp(&twin, &single, sizeof single), 0)
                            << tensor_type_name(id) << " twin, n=" << n << ": " << twin
                            << " != " << single;
                    }
                }
            }
        }
    }
}

INSTANTIATE_TEST_SUITE_P(AllWeightTypes, DotTest, testing::ValuesIn(kTypes), [](const auto& info) {
    return tensor_type_name(static_cast<uint32_t>(info.param));
});

// MXFP4's scale 2^(exponent - 128) at the ends of its range, which the random weights (shared
// files' sizes) never reach: the subnormal scales of exponents 0 and 1, the first normal one, and
// large ones. Every kernel equals its twin to a relative 1e-5 (each block's scale times the
// activations' rounds once in both), on a row of two whole lane groups and a partial one.
TEST(Dot, Mxfp4KernelsTakeEveryExponentAsTheirTwinDoes) {
    const auto id = static_cast<uint32_t>(TensorType::MXFP4);
    constexpr size_t n = 11 * 32;
    std::mt19937 random(77);
    auto weights = random_weights(TensorType::MXFP4, n, random);
    const auto x = random_floats(n, random);
    for (const int exponent : {0, 1, 2, 3, 64, 127, 128, 192}) {
        for (size_t block = 0; block < n / 32; ++block)
            weights[block * sizeof(BlockMXFP4)] = static_cast<std::byte>(exponent);
        for (const Isa isa : {Isa::Scalar, Isa::Avx2, Isa::Avx512Vnni}) {
            if (isa > best_isa()) continue;
            const auto& table = dot_table(isa);
            std::vector<std::byte> prepared(activation_row_bytes(table.format[id], n));
            prepare_activations(table.format[id], x.data(), prepared.data(), n);
            const float twin =
                scalar_twin(table, static_cast<int>(id))(weights.data(), prepared.data(), n);
            const float simd = table.dot[id](weights.data(), prepared.data(), n);
            ASSERT_NE(twin, 0.0f) << "exponent " << exponent;
            EXPECT_NEAR(simd, twin, 1e-5 * std::fabs(twin))
                << "exponent " << exponent << " on " << isa_name(isa);
        }
    }
}

TEST(Quantize, RoundTripsWithinEachFormatsStep) {
    std::mt19937 random(99);
    const auto x = random_floats(1024, random, 0.02f);
    const auto check = [&](TensorType type, auto quantize, float tolerance) {
        std::vector<std::byte> bytes(tensor_bytes(type, x.size()));
        quantize(x.data(), bytes.data(), x.size());
        std::vector<float> back(x.size());
        dequantize(type, bytes.data(), back.data(), back.size());
        double worst = 0.0;
        for (size_t i = 0; i < x.size(); ++i)
            worst = std::max(worst, std::fabs(static_cast<double>(back[i]) - x[i]));
        EXPECT_LT(worst, tolerance) << tensor_type_name(static_cast<uint32_t>(type));
    };
    // Steps are (range of a block) / (levels - 1); values are N(0, 0.02), so |x| < ~0.09.
    check(TensorType::F16, quantize_f16, 3.1e-5f);  // half an f16 step at 0.0625..0.125
    check(TensorType::BF16, quantize_bf16, 5e-4f);
    check(TensorType::Q8_0, quantize_q8_0, 0.0004f);
    check(TensorType::Q4_0, quantize_q4_0, 0.008f);
    check(TensorType::Q5_0, quantize_q5_0, 0.004f);
    check(TensorType::Q4_K, quantize_q4_k, 0.01f);
    check(TensorType::Q6_K, quantize_q6_k, 0.003f);
}

TEST(Dot, NamesInstructionSetsAndRefusesOnesTheCpuLacks) {
    EXPECT_EQ(parse_isa("scalar"), Isa::Scalar);
    EXPECT_THROW(parse_isa("sse9"), std::invalid_argument);
    if (best_isa() < Isa::Avx512Vnni) {
        EXPECT_THROW(parse_isa("avx512-vnni"), std::invalid_argument);
    } else {
        EXPECT_EQ(parse_isa("avx512-vnni"), Isa::Avx512Vnni);
        EXPECT_EQ(parse_isa("avx2"), Isa::Avx2);
    }
}

TEST(Dot, TheMachinesBestKernelsAreInUse) {
    // These machines have AVX2 (PLATFORM.md); a build that silently fell back to scalar is a bug.
    __builtin_cpu_init();
    const bool vnni = __builtin_cpu_supports("avx512vnni") && __builtin_cpu_supports("avx512bw") &&
                      __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512vbmi") &&
                      __builtin_cpu_supports("gfni") && __builtin_cpu_supports("avx512bitalg");
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
        __builtin_cpu_supports("f16c")) {
        EXPECT_EQ(best_isa(), vnni ? Isa::Avx512Vnni : Isa::Avx2);
    } else {
        EXPECT_EQ(best_isa(), Isa::Scalar);
    }
}

}  // namespace
}  // namespace hearth::kernels
