#include "engine/format/gguf_file.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <tuple>

#include "engine/compute/cpu_backend.h"
#include "engine/format/gguf_writer.h"
#include "engine/format/split_name.h"
#include "engine/model/load_error.h"
#include "engine/model/model.h"
#include "tests/support/shared_data.h"
#include "tests/support/split_model.h"
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
    EXPECT_EQ(tokens->element_type(), GgufValueType::String);
    ASSERT_EQ(tokens->size(), 512u);
    EXPECT_EQ(tokens->string_at(1), "<s>");
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
        ASSERT_EQ(nested->size(), 2u);
        EXPECT_EQ(nested->array_at(0).integer_at(1), 2);
        EXPECT_TRUE(nested->array_at(1).empty());
        const auto* b = file->find_tensor("b");
        ASSERT_NE(b, nullptr);
        EXPECT_EQ(b->offset % 64, 0u);
        float values[4];
        std::memcpy(values, b->data, sizeof values);
        EXPECT_EQ(values[3], 8.0f);
    }
}

// The families no issue has brought in yet (IQ1/IQ2/IQ3, TQ) are refused with their names.
TEST(GgufFile, RefusesAnUnsupportedTensorTypeByName) {
    const std::string name = "blk.0.ffn_up.weight";
    const std::pair<uint32_t, std::string> unsupported[] = {
        {16, "IQ2_XXS"}, {17, "IQ2_XS"}, {18, "IQ3_XXS"}, {19, "IQ1_S"}, {21, "IQ3_S"},
        {22, "IQ2_S"},   {29, "IQ1_M"},  {34, "TQ1_0"},   {35, "TQ2_0"}};
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
                                   "Q2_K, Q3_K, Q4_K, Q5_K, Q6_K, IQ4_NL, IQ4_XS, MXFP4)"),
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

// Vocabulary-sized arrays of strings (empty ones, long ones, multi-byte UTF-8) and of floats
// travel through the writer and reader with every value intact: the floats lie in the file as
// GGUF lays out an array, and the file written again from what was read is the same bytes.
TEST(GgufWriter, LargeStringAndFloatArraysRoundTrip) {
    constexpr size_t kCount = 100'000;
    const auto text_of = [](size_t i) {
        if (i % 7 == 0) return std::string();
        return "tok" + std::to_string(i) + std::string(i % 23, 'x') + (i % 5 == 0 ? "é▁" : "");
    };
    const auto number_of = [](size_t i) { return static_cast<float>(i) * 0.5f - 1000.25f; };
    GgufArray texts(GgufValueType::String);
    GgufArray numbers(GgufValueType::Float32);
    std::vector<float> raw_numbers;
    for (size_t i = 0; i < kCount; ++i) {
        texts.push_back(text_of(i));
        numbers.push_back(GgufValue(number_of(i)));
        raw_numbers.push_back(number_of(i));
    }
    GgufWriter writer;
    writer.set("numbers", GgufValue(numbers));
    writer.set("texts", GgufValue(texts));
    writer.add_tensor("x", TensorType::F32, {1}, f32_bytes({1}));
    const auto bytes = writer.serialize();

    std::vector<std::byte> numbers_layout(12);
    const uint32_t float32 = 6;
    const uint64_t count = kCount;
    std::memcpy(numbers_layout.data(), &float32, 4);
    std::memcpy(numbers_layout.data() + 4, &count, 8);
    const auto floats = f32_bytes(raw_numbers);
    numbers_layout.insert(numbers_layout.end(), floats.begin(), floats.end());
    EXPECT_NE(std::search(bytes.begin(), bytes.end(), numbers_layout.begin(), numbers_layout.end()),
              bytes.end());

    const test::TempDirectory directory;
    const auto file = GgufFile::open(directory.write("arrays.gguf", bytes));
    const auto* read_texts = file->get_array("texts");
    const auto* read_numbers = file->get_array("numbers");
    ASSERT_NE(read_texts, nullptr);
    ASSERT_NE(read_numbers, nullptr);
    ASSERT_EQ(read_texts->size(), kCount);
    ASSERT_EQ(read_numbers->size(), kCount);
    size_t wrong_texts = 0, wrong_numbers = 0;
    for (size_t i = 0; i < kCount; ++i) {
        wrong_texts += read_texts->string_at(i) != text_of(i);
        wrong_numbers += read_numbers->number_at(i) != static_cast<double>(number_of(i));
    }
    EXPECT_EQ(wrong_texts, 0u);
    EXPECT_EQ(wrong_numbers, 0u);

    GgufWriter again;
    for (const auto& [key, value] : file->metadata()) again.set(key, value);
    const auto* x = file->find_tensor("x");
    again.add_tensor(x->name, x->type, x->shape,
                     std::vector<std::byte>(x->data, x->data + x->bytes));
    EXPECT_EQ(again.serialize(), bytes);
}

// A tensor whose bytes are made while the file is written (hearth-synth-model's multi-gigabyte
// files): made once, in order, and read back where its place in the header says; bytes that do
// not fit the shape are refused by name.
TEST(GgufWriter, TensorsMadeWhileWritingLandInOrder) {
    GgufWriter writer;
    std::vector<std::string> made;
    writer.add_tensor("a", TensorType::F32, {3}, std::vector<std::byte>(12, std::byte{1}));
    writer.add_tensor("b", TensorType::F16, {5}, [&] {
        made.push_back("b");
        return std::vector<std::byte>(10, std::byte{2});
    });
    writer.add_tensor("c", TensorType::F32, {1}, [&] {
        made.push_back("c");
        return std::vector<std::byte>(4, std::byte{3});
    });
    EXPECT_TRUE(made.empty());
    const test::TempDirectory directory;
    const auto path = directory.path() / "made.gguf";
    writer.write(path);
    EXPECT_EQ(made, (std::vector<std::string>{"b", "c"}));
    const auto file = GgufFile::open(path);
    for (const auto& [name, byte, size] :
         {std::tuple{"a", 1, 12}, std::tuple{"b", 2, 10}, std::tuple{"c", 3, 4}}) {
        const auto* tensor = file->find_tensor(name);
        ASSERT_EQ(tensor->bytes, static_cast<size_t>(size)) << name;
        for (int i = 0; i < size; ++i)
            EXPECT_EQ(tensor->data[i], static_cast<std::byte>(byte)) << name;
    }
    GgufWriter wrong;
    wrong.add_tensor("short", TensorType::F32, {4},
                     [] { return std::vector<std::byte>(8, std::byte{0}); });
    try {
        wrong.write(directory.path() / "wrong.gguf");
        FAIL() << "bytes that do not fit the shape were written";
    } catch (const std::invalid_argument& error) {
        EXPECT_NE(std::string(error.what()).find("'short'"), std::string::npos) << error.what();
    }
}

// The last logits of one prompt on the CPU backend, run the same way for every model.
std::vector<float> prompt_logits(const Model& model) {
    std::vector<int32_t> tokens{1};
    for (int i = 0; i < 40; ++i) tokens.push_back(3 + (i * 37) % 250);
    CpuBackend backend(model, {.threads = 2});
    auto sequence = backend.create_sequence(64);
    return backend.forward(tokens, *sequence, LogitRows::Last);
}

class SplitModelTest : public testing::TestWithParam<std::pair<const char*, int>> {};

TEST_P(SplitModelTest, LoadsFromItsFirstPartWithTheWholeFilesLogitsBitForBit) {
    const auto [model_name, count] = GetParam();
    const auto whole = Model::load(test::model_path(model_name));
    const test::TempDirectory directory;
    const auto parts = test::write_split_model(whole->file(), directory.path() / "model", count);
    std::vector<std::pair<size_t, size_t>> progress;
    const auto split = Model::load(parts.front(), {.progress = [&](size_t done, size_t total) {
                                       progress.emplace_back(done, total);
                                       return true;
                                   }});

    uintmax_t bytes = 0;
    for (const auto& part : parts) bytes += std::filesystem::file_size(part);
    EXPECT_EQ(split->file().file_size(), bytes);
    ASSERT_FALSE(progress.empty());
    EXPECT_EQ(progress.back(), std::make_pair(size_t{bytes}, size_t{bytes}));
    for (const auto& [done, total] : progress) EXPECT_EQ(total, bytes);
    ASSERT_EQ(split->file().tensors().size(), whole->file().tensors().size());
    // The last part's tensors are read from the last part's own mapping.
    const auto& last = split->file().tensors().back();
    EXPECT_EQ(std::memcmp(last.data, whole->file().find_tensor(last.name)->data, last.bytes), 0);

    const auto expected = prompt_logits(*whole);
    const auto logits = prompt_logits(*split);
    ASSERT_EQ(logits.size(), expected.size());
    for (size_t i = 0; i < logits.size(); ++i) ASSERT_EQ(logits[i], expected[i]) << i;
}

INSTANTIATE_TEST_SUITE_P(Models, SplitModelTest,
                         testing::Values(std::make_pair("stories260K.gguf", 3),
                                         std::make_pair("synth-llama-256-Q4_K_M.gguf", 2)),
                         [](const auto& info) {
                             return "Parts" + std::to_string(info.param.second);
                         });

// What loading `path` throws, or "" when it loads.
std::string load_error(const std::filesystem::path& path) {
    try {
        GgufFile::open(path, {.prefault = false});
    } catch (const LoadError& error) {
        return error.what();
    }
    return "";
}

class SplitErrorTest : public testing::Test {
protected:
    SplitErrorTest()
        : m_source(GgufFile::open(test::model_path("stories260K.gguf"))),
          m_prefix(m_directory.path() / "model"),
          m_names(test::split_tensor_names(*m_source, 3)) {}

    std::filesystem::path write_part(int number, int count = 3) {
        return test::write_split_part(*m_source, m_prefix, number, count,
                                      m_names[static_cast<size_t>(number - 1)]);
    }

    test::TempDirectory m_directory;
    std::unique_ptr<GgufFile> m_source;
    std::filesystem::path m_prefix;
    std::vector<std::vector<std::string>> m_names;
};

TEST_F(SplitErrorTest, AMissingPartIsNamed) {
    const auto first = write_part(1);
    write_part(3);
    const auto message = load_error(first);
    EXPECT_NE(message.find("part 2 of 3 of this split model is missing: " +
                           split_part_path(m_prefix, 2, 3).string()),
              std::string::npos)
        << message;
}

TEST_F(SplitErrorTest, ALaterPartOpenedAloneNamesTheFirst) {
    write_part(1);
    const auto second = write_part(2);
    write_part(3);
    const auto message = load_error(second);
    EXPECT_NE(message.find(second.string() + ": this is part 2 of 3 of a split model; open its "
                                             "first part, model-00001-of-00003.gguf"),
              std::string::npos)
        << message;
}

TEST_F(SplitErrorTest, APartFromAnotherSplitIsRefused) {
    const auto first = write_part(1);
    // Part 2 of a two-part split of the same model, renamed into this set.
    const auto stray = test::write_split_part(*m_source, m_prefix, 2, 2, m_names[1]);
    std::filesystem::rename(stray, split_part_path(m_prefix, 2, 3));
    write_part(3);
    const auto message = load_error(first);
    EXPECT_NE(message.find("model-00002-of-00003.gguf: is part 2 of 2, not part 2 of 3"),
              std::string::npos)
        << message;
    EXPECT_NE(message.find("a part from another split"), std::string::npos) << message;
}

TEST_F(SplitErrorTest, APartMissingATensorIsRefused) {
    const auto first = write_part(1);
    write_part(2);
    m_names[2].pop_back();
    write_part(3);
    const auto message = load_error(first);
    EXPECT_NE(message.find("hold " + std::to_string(m_source->tensors().size() - 1) +
                           " tensors but split.tensors.count is " +
                           std::to_string(m_source->tensors().size())),
              std::string::npos)
        << message;
}

TEST_F(SplitErrorTest, ATensorInTwoPartsIsRefused) {
    const auto first = write_part(1);
    write_part(2);
    m_names[2].push_back(m_names[0].front());
    const auto third = write_part(3);
    const auto message = load_error(first);
    EXPECT_NE(message.find(third.string() + ": tensor '" + m_names[0].front() + "' is also in " +
                           first.string()),
              std::string::npos)
        << message;
}

TEST_F(SplitErrorTest, AFirstPartRenamedAwayFromThePatternSaysWhy) {
    const auto first = write_part(1);
    const auto renamed = m_directory.path() / "model.gguf";
    std::filesystem::rename(first, renamed);
    const auto message = load_error(renamed);
    EXPECT_NE(message.find("does not end in -00001-of-00003.gguf"), std::string::npos) << message;
}

}  // namespace
}  // namespace hearth
