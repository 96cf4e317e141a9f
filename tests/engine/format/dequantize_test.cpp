// Scalar dequantisation of every weight type against the per-tensor checksums llama.cpp's
// dequantisation produced (model.dequantized_tensors in the *.f32math fixtures).
#include <gtest/gtest.h>

#include <QCryptographicHash>

#include <array>
#include <cmath>
#include <limits>
#include <set>

#include "engine/format/gguf_file.h"
#include "tests/support/shared_data.h"
#include "tests/support/unsupported_files.h"

namespace hearth {
namespace {

std::vector<std::string> f32math_fixtures() {
    std::vector<std::string> names;
    for (const auto& name : test::model_fixture_names()) {
        if (name.ends_with(".f32math")) names.push_back(name);
    }
    return names;
}

class DequantizeTest : public testing::TestWithParam<std::string> {};

// The weight type a listed file lacks, or nullptr where every weight type of the file is
// supported (a file listed only for its architecture still dequantizes, and is checked).
const test::UnsupportedFile* missing_weight_type(const std::string& fixture) {
    const auto* entry = test::find_unsupported(test::model_file_of_fixture(fixture));
    return entry && entry->kind == test::MissingKind::WeightType ? entry : nullptr;
}

TEST_P(DequantizeTest, EveryTensorMatchesLlamaCppBitForBit) {
    const auto json = test::load_json(test::fixture_path("models/" + GetParam() + ".json"));
    const auto model = json["model"].toObject();
    const auto path = test::model_path(model["file"].toString().toStdString());
    if (const auto* entry = missing_weight_type(GetParam())) {
        test::expect_refused(*entry, [&] { const auto file = GgufFile::open(path); });
        return;
    }
    const auto file = GgufFile::open(path);
    const auto tensors = model["dequantized_tensors"].toArray();
    ASSERT_EQ(static_cast<size_t>(tensors.size()), file->tensors().size());
    for (const auto& value : tensors) {
        const auto expected = value.toObject();
        const std::string name = expected["name"].toString().toStdString();
        const auto* tensor = file->find_tensor(name);
        ASSERT_NE(tensor, nullptr) << name;
        ASSERT_EQ(tensor_type_name(static_cast<uint32_t>(tensor->type)),
                  expected["stored_type"].toString().toStdString());
        ASSERT_EQ(tensor->elements, static_cast<uint64_t>(expected["n"].toInteger()));

        std::vector<float> values(tensor->elements);
        dequantize(tensor->type, tensor->data, values.data(), values.size());
        const QByteArray bytes(reinterpret_cast<const char*>(values.data()),
                               static_cast<qsizetype>(values.size() * sizeof(float)));
        EXPECT_EQ(QCryptographicHash::hash(bytes, QCryptographicHash::Sha256).toHex().toStdString(),
                  expected["sha256_f32le"].toString().toStdString())
            << name;
        const auto first8 = test::to_floats(expected["first8"].toArray());
        for (size_t i = 0; i < first8.size(); ++i)
            EXPECT_EQ(values[i], first8[i]) << name << "[" << i << "]";
        double sum = 0.0, sum_squares = 0.0;
        for (const float v : values) {
            sum += v;
            sum_squares += static_cast<double>(v) * v;
        }
        EXPECT_NEAR(sum, expected["sum"].toDouble(), 1e-6 * (1.0 + std::abs(sum))) << name;
        EXPECT_NEAR(sum_squares, expected["sum_sq"].toDouble(), 1e-9 * sum_squares) << name;
    }
}

INSTANTIATE_TEST_SUITE_P(SharedModels, DequantizeTest, testing::ValuesIn(f32math_fixtures()),
                         [](const auto& info) {
                             std::string name = info.param;
                             for (char& c : name) {
                                 if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                             }
                             return name;
                         });

// Every type Hearth reads is checked on some file, and every other type in ../shared is one a
// listed file lacks.
TEST(Dequantize, CoversEveryWeightType) {
    std::set<std::string> checked, listed;
    for (const auto& name : f32math_fixtures()) {
        if (const auto* entry = missing_weight_type(name)) {
            listed.insert(std::string(entry->missing));
            continue;
        }
        const auto json = test::load_json(test::fixture_path("models/" + name + ".json"));
        for (const auto& key : json["model"].toObject()["tensor_type_counts"].toObject().keys()) {
            checked.insert(key.toStdString());
        }
    }
    const std::set<std::string> supported{"F32",  "F16",    "BF16",   "Q8_0", "Q4_0", "Q4_1",
                                          "Q5_0", "Q5_1",   "Q2_K",   "Q3_K", "Q4_K", "Q5_K",
                                          "Q6_K", "IQ4_NL", "IQ4_XS", "MXFP4"};
    EXPECT_EQ(checked, supported);
    EXPECT_EQ(listed, std::set<std::string>{});
}

// The shared files' exponents sit near 2^-8, so the ends of E8M0 are checked here: ggml reads
// 0 and 1 as the subnormals 2^-128 and 2^-127 (not zero) and 255 as 2^127 (not NaN).
TEST(Dequantize, Mxfp4ExponentsAtBothEndsAreExactPowersOfTwo) {
    const std::pair<uint8_t, float> ends[] = {
        {0, std::ldexp(1.0f, -128)},  {1, std::ldexp(1.0f, -127)},
        {2, std::ldexp(1.0f, -126)},  {128, 1.0f},
        {254, std::ldexp(1.0f, 126)}, {255, std::ldexp(1.0f, 127)}};
    for (const auto& [exponent, scale] : ends) {
        ASSERT_GT(scale, 0.0f);
        std::array<uint8_t, 17> block{};
        block[0] = exponent;
        for (int j = 0; j < 16; ++j) block[1 + j] = static_cast<uint8_t>(j | (15 - j) << 4);
        std::array<float, 32> values{};
        dequantize(TensorType::MXFP4, block.data(), values.data(), values.size());
        const float codes[16] = {0, 1, 2, 3, 4, 6, 8, 12, 0, -1, -2, -3, -4, -6, -8, -12};
        for (int j = 0; j < 16; ++j) {
            EXPECT_EQ(values[j], codes[j] * scale) << int{exponent} << " code " << j;
            EXPECT_EQ(values[j + 16], codes[15 - j] * scale) << int{exponent} << " code " << 15 - j;
        }
        EXPECT_FALSE(std::signbit(values[8])) << "code 8 is +0";
    }
    // The largest code at the largest exponent overflows, as ggml's float product does.
    std::array<uint8_t, 17> largest{255, 0x07};
    std::array<float, 32> values{};
    dequantize(TensorType::MXFP4, largest.data(), values.data(), values.size());
    EXPECT_EQ(values[0], std::numeric_limits<float>::infinity());
    EXPECT_EQ(values[16], 0.0f);
}

}  // namespace
}  // namespace hearth
