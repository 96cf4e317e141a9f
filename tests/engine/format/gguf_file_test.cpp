#include "engine/format/gguf_file.h"

#include <gtest/gtest.h>

#include <cstring>

#include "engine/format/gguf_writer.h"
#include "engine/model/load_error.h"
#include "tests/support/shared_data.h"
#include "tests/support/temp_files.h"

namespace hearth {
namespace {

std::vector<std::byte> f32_bytes(const std::vector<float>& values) {
    std::vector<std::byte> bytes(values.size() * sizeof(float));
    std::memcpy(bytes.data(), values.data(), bytes.size());
    return bytes;
}

TEST(GgufFile, ReadsTheBundledModel) {
    const auto file = GgufFile::open(test::model_path("stories260K.gguf"));
    EXPECT_EQ(file->version(), 3u);
    EXPECT_EQ(file->alignment(), 32u);
    EXPECT_EQ(file->metadata().size(), 19u);
    EXPECT_EQ(file->get_string("general.architecture"), "llama");
    EXPECT_EQ(file->get_integer("llama.block_count"), 5);
    EXPECT_NEAR(*file->get_number("llama.attention.layer_norm_rms_epsilon"), 1e-5, 1e-12);
    const auto* tokens = file->get_array("tokenizer.ggml.tokens");
    ASSERT_NE(tokens, nullptr);
    EXPECT_EQ(tokens->element_type, GgufValueType::String);
    ASSERT_EQ(tokens->items.size(), 512u);
    EXPECT_EQ(*tokens->items[1].as_string(), "<s>");
    ASSERT_EQ(file->tensors().size(), 48u);
    const auto* embedding = file->find_tensor("token_embd.weight");
    ASSERT_NE(embedding, nullptr);
    EXPECT_EQ(embedding->type, TensorType::F32);
    EXPECT_EQ(embedding->shape, (std::vector<uint64_t>{64, 512}));
    EXPECT_EQ(embedding->bytes, 64u * 512u * 4u);
    EXPECT_EQ(file->find_tensor("no.such.tensor"), nullptr);
}

TEST(GgufFile, TypedLookupsNameTheKeyWhenTheTypeIsWrong) {
    const auto file = GgufFile::open(test::model_path("stories260K.gguf"));
    EXPECT_EQ(file->get_string("missing.key"), std::nullopt);
    try {
        file->get_integer("general.architecture");
        FAIL() << "expected LoadError";
    } catch (const LoadError& error) {
        EXPECT_NE(std::string(error.what())
                      .find("'general.architecture' has type string, expected an integer"),
                  std::string::npos)
            << error.what();
    }
    EXPECT_THROW(file->get_array("llama.block_count"), LoadError);
}

TEST(GgufFile, ReadsEveryValueTypeAndNestedArraysFromVersions2And3) {
    GgufWriter writer(64);
    writer.set("u8", GgufValue(uint8_t{200}));
    writer.set("i8", GgufValue(int8_t{-5}));
    writer.set("u16", GgufValue(uint16_t{60000}));
    writer.set("i16", GgufValue(int16_t{-30000}));
    writer.set("u32", GgufValue(uint32_t{4000000000u}));
    writer.set("i32", GgufValue(int32_t{-2000000000}));
    writer.set("f32", GgufValue(1.5f));
    writer.set("bool", GgufValue(true));
    writer.set("string", GgufValue(std::string("héllo")));
    writer.set("u64", GgufValue(uint64_t{1} << 40));
    writer.set("i64", GgufValue(int64_t{-1} << 40));
    writer.set("f64", GgufValue(0.25));
    GgufArray inner{GgufValueType::Int32, {GgufValue(int32_t{1}), GgufValue(int32_t{2})}};
    GgufArray outer{GgufValueType::Array,
                    {GgufValue(inner), GgufValue(GgufArray{GgufValueType::Int32, {}})}};
    writer.set("nested", GgufValue(outer));
    writer.add_tensor("a", TensorType::F32, {4}, f32_bytes({1, 2, 3, 4}));
    writer.add_tensor("b", TensorType::F32, {2, 2}, f32_bytes({5, 6, 7, 8}));
    auto bytes = writer.serialize();

    const test::TempDirectory directory;
    for (const uint32_t version : {2u, 3u}) {
        std::memcpy(bytes.data() + 4, &version, sizeof version);
        const auto file =
            GgufFile::open(directory.write("v" + std::to_string(version) + ".gguf", bytes));
        EXPECT_EQ(file->version(), version);
        EXPECT_EQ(file->alignment(), 64u);
        EXPECT_EQ(file->get_integer("u8"), 200);
        EXPECT_EQ(file->get_integer("i8"), -5);
        EXPECT_EQ(file->get_integer("u16"), 60000);
        EXPECT_EQ(file->get_integer("i16"), -30000);
        EXPECT_EQ(file->get_integer("u32"), 4000000000LL);
        EXPECT_EQ(file->get_integer("i32"), -2000000000);
        EXPECT_EQ(file->get_number("f32"), 1.5);
        EXPECT_EQ(file->get_bool("bool"), true);
        EXPECT_EQ(file->get_string("string"), "héllo");
        EXPECT_EQ(file->get_integer("u64"), int64_t{1} << 40);
        EXPECT_EQ(file->get_integer("i64"), int64_t{-1} << 40);
        EXPECT_EQ(file->get_number("f64"), 0.25);
        const auto* nested = file->get_array("nested");
        ASSERT_NE(nested, nullptr);
        ASSERT_EQ(nested->items.size(), 2u);
        EXPECT_EQ(nested->items[0].as_array()->items[1].as_integer(), 2);
        EXPECT_TRUE(nested->items[1].as_array()->items.empty());
        const auto* b = file->find_tensor("b");
        ASSERT_NE(b, nullptr);
        EXPECT_EQ(b->offset % 64, 0u);
        float values[4];
        std::memcpy(values, b->data, sizeof values);
        EXPECT_EQ(values[3], 8.0f);
    }
}

// The families no issue has brought in yet (IQ1/IQ2/IQ3, TQ, MXFP4) are refused with their names.
TEST(GgufFile, RefusesAnUnsupportedTensorTypeByName) {
    const std::string name = "blk.0.ffn_up.weight";
    const std::pair<uint32_t, std::string> unsupported[] = {
        {16, "IQ2_XXS"}, {17, "IQ2_XS"}, {18, "IQ3_XXS"}, {19, "IQ1_S"}, {21, "IQ3_S"},
        {22, "IQ2_S"},   {29, "IQ1_M"},  {34, "TQ1_0"},   {35, "TQ2_0"}, {39, "MXFP4"}};
    for (const auto& [id, type] : unsupported) {
        GgufWriter writer;
        writer.add_tensor(name, TensorType::Q8_0, {32}, std::vector<std::byte>(34));
        auto bytes = writer.serialize();
        // Rewrite the type id (Q8_0 = 8): it sits 12 bytes after the tensor's name.
        const auto* begin = reinterpret_cast<const char*>(bytes.data());
        const size_t type_at =
            std::string_view(begin, bytes.size()).find(name) + name.size() + 4 + 8;
        std::memcpy(bytes.data() + type_at, &id, sizeof id);
        const test::TempDirectory directory;
        try {
            GgufFile::open(directory.write("unsupported.gguf", bytes));
            ADD_FAILURE() << type << " was accepted";
        } catch (const LoadError& error) {
            const std::string message = error.what();
            EXPECT_NE(message.find("tensor 'blk.0.ffn_up.weight' has type " + type +
                                   ", which Hearth does not support"),
                      std::string::npos)
                << message;
            EXPECT_NE(message.find("unsupported.gguf"), std::string::npos) << message;
            EXPECT_NE(message.find("(supported: F32, F16, BF16, Q8_0, Q4_0, Q4_1, Q5_0, Q5_1, "
                                   "Q2_K, Q3_K, Q4_K, Q5_K, Q6_K, IQ4_NL, IQ4_XS)"),
                      std::string::npos)
                << message;
        }
    }
}

TEST(GgufFile, MissingFileIsAClearError) {
    try {
        GgufFile::open("/nonexistent/model.gguf");
        FAIL() << "expected LoadError";
    } catch (const LoadError& error) {
        EXPECT_NE(std::string(error.what()).find("/nonexistent/model.gguf: cannot open"),
                  std::string::npos);
    }
}

TEST(GgufWriter, WrittenFileReadsBackIdentically) {
    GgufWriter writer;
    writer.set("general.architecture", GgufValue(std::string("llama")));
    writer.add_tensor("x", TensorType::F16, {8}, std::vector<std::byte>(16, std::byte{0x3c}));
    const test::TempDirectory directory;
    const auto path = directory.path() / "written.gguf";
    writer.write(path);
    EXPECT_EQ(test::read_bytes(path), writer.serialize());
    const auto file = GgufFile::open(path);
    EXPECT_EQ(file->find_tensor("x")->bytes, 16u);
}

}  // namespace
}  // namespace hearth
