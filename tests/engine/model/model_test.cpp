#include "engine/model/model.h"

#include <gtest/gtest.h>

#include <set>

#include "engine/format/gguf_writer.h"
#include "engine/model/load_error.h"
#include "tests/support/shared_data.h"
#include "tests/support/temp_files.h"

namespace hearth {
namespace {

TEST(Model, ReadsStories260KHyperParameters) {
    const auto model = Model::load(test::model_path("stories260K.gguf"));
    const auto& c = model->config();
    EXPECT_EQ(c.architecture, Architecture::Llama);
    EXPECT_EQ(c.embedding_length, 64);
    EXPECT_EQ(c.layer_count, 5);
    EXPECT_EQ(c.head_count, 8);
    EXPECT_EQ(c.kv_head_count, 4);
    EXPECT_EQ(c.head_dim, 8);
    EXPECT_EQ(c.feed_forward_length, 172);
    EXPECT_EQ(c.vocab_size, 512);
    EXPECT_EQ(c.context_length, 2048);
    EXPECT_EQ(c.rope.dimensions, 8);
    EXPECT_EQ(c.rope.base, 10000.0);
    EXPECT_EQ(c.rope.style, RopeStyle::AdjacentPairs);
    EXPECT_FALSE(c.tied_embeddings);
    EXPECT_EQ(model->weights().layers.size(), 5u);
    EXPECT_TRUE(model->weights().rope_factors.empty());
}

TEST(Model, Qwen2HasNeoxRopeBiasesAndTiedEmbeddings) {
    const auto model = Model::load(test::model_path("synth-qwen2-256-Q8_0.gguf"));
    const auto& c = model->config();
    EXPECT_EQ(c.architecture, Architecture::Qwen2);
    EXPECT_EQ(c.rope.style, RopeStyle::Neox);
    EXPECT_EQ(c.rope.base, 1e6);
    EXPECT_TRUE(c.tied_embeddings);
    EXPECT_EQ(model->weights().output.data, model->weights().token_embedding.data);
    EXPECT_EQ(model->weights().layers[0].query_bias.size(), 256u);
    EXPECT_EQ(model->weights().layers[1].value_bias.size(), 128u);
    EXPECT_EQ(model->weights().layers[0].query.type, TensorType::Q8_0);
}

TEST(Model, Llama3ReadsItsRopeFrequencyFactors) {
    const auto model = Model::load(test::model_path("synth-llama3-256.gguf"));
    const auto& factors = model->weights().rope_factors;
    ASSERT_EQ(factors.size(), 32u);
    EXPECT_EQ(factors.front(), 1.0f);
    EXPECT_EQ(factors.back(), 8.0f);
    EXPECT_EQ(model->config().rope.base, 500000.0);
    EXPECT_TRUE(model->config().tied_embeddings);
}

TEST(Model, WeightsPointIntoTheMappedFile) {
    const auto model = Model::load(test::model_path("synth-llama-256-Q4_K_M.gguf"));
    const auto* tensor = model->file().find_tensor("blk.1.ffn_down.weight");
    EXPECT_EQ(model->weights().layers[1].down.data, tensor->data);
    EXPECT_EQ(model->weights().layers[1].down.type, TensorType::Q6_K);
    EXPECT_EQ(model->weights().layers[1].down.row_bytes, 768u / 256u * 210u);
}

// A tiny, valid llama file with zero weights, which each test then breaks in one way.
struct TinyModelSpec {
    std::string architecture = "llama";
    std::set<std::string> skip_tensors;
    std::set<std::string> skip_keys;
    std::string misshapen_tensor;
    uint32_t kv_heads = 2;
};

std::vector<std::byte> tiny_model(const TinyModelSpec& spec) {
    GgufWriter writer;
    const std::string& a = spec.architecture;
    const std::vector<std::pair<std::string, uint32_t>> keys{
        {a + ".embedding_length", 32},    {a + ".block_count", 1},
        {a + ".attention.head_count", 4}, {a + ".attention.head_count_kv", spec.kv_heads},
        {a + ".feed_forward_length", 64}, {a + ".context_length", 128}};
    writer.set("general.architecture", GgufValue(a));
    for (const auto& [key, value] : keys) {
        if (!spec.skip_keys.contains(key)) writer.set(key, GgufValue(value));
    }
    const auto add = [&](const std::string& name, std::vector<uint64_t> shape) {
        if (spec.skip_tensors.contains(name)) return;
        if (name == spec.misshapen_tensor) shape[0] *= 2;
        uint64_t elements = 1;
        for (const auto extent : shape) elements *= extent;
        writer.add_tensor(name, TensorType::F32, shape, std::vector<std::byte>(elements * 4));
    };
    add("token_embd.weight", {32, 16});
    add("output_norm.weight", {32});
    add("blk.0.attn_norm.weight", {32});
    add("blk.0.attn_q.weight", {32, 32});
    add("blk.0.attn_k.weight", {32, 16});
    add("blk.0.attn_v.weight", {32, 16});
    add("blk.0.attn_output.weight", {32, 32});
    add("blk.0.ffn_norm.weight", {32});
    add("blk.0.ffn_gate.weight", {32, 64});
    add("blk.0.ffn_up.weight", {32, 64});
    add("blk.0.ffn_down.weight", {64, 32});
    return writer.serialize();
}

std::string load_error(const TinyModelSpec& spec) {
    const test::TempDirectory directory;
    try {
        Model::load(directory.write("tiny.gguf", tiny_model(spec)));
    } catch (const LoadError& error) {
        return error.what();
    }
    return "";
}

TEST(Model, TinyValidModelLoadsWithTiedEmbeddings) {
    EXPECT_EQ(load_error({}), "");
}

TEST(Model, LoadErrorsNameWhatIsWrong) {
    EXPECT_NE(
        load_error({.architecture = "gpt-neox"}).find("architecture 'gpt-neox' is not supported"),
        std::string::npos);
    EXPECT_NE(load_error({.skip_tensors = {"blk.0.ffn_up.weight"}})
                  .find("the model has no tensor 'blk.0.ffn_up.weight'"),
              std::string::npos);
    EXPECT_NE(
        load_error({.skip_keys = {"llama.block_count"}}).find("'llama.block_count' is missing"),
        std::string::npos);
    EXPECT_NE(load_error({.misshapen_tensor = "blk.0.attn_k.weight"})
                  .find("'blk.0.attn_k.weight' has shape [64, 16], expected [32, 16]"),
              std::string::npos);
    EXPECT_NE(load_error({.kv_heads = 3}).find("inconsistent attention shape"), std::string::npos);
    EXPECT_NE(load_error({.kv_heads = 0}).find("'llama.attention.head_count_kv' is 0"),
              std::string::npos);
    EXPECT_NE(load_error({.architecture = "qwen2"}).find("lacks its q/k/v biases"),
              std::string::npos);
}

}  // namespace
}  // namespace hearth

namespace hearth {
namespace {

TEST(ModelLoading, ReportsProgressAndCanBeCancelled) {
    const auto path = test::model_path("synth-llama-256.gguf");
    std::vector<size_t> reports;
    size_t total = 0;
    // Released before the cancelled load, which would otherwise share its copy of the file.
    Model::load(path, {.progress = [&](size_t done, size_t size) {
                    reports.push_back(done);
                    total = size;
                    return true;
                }});
    EXPECT_EQ(total, std::filesystem::file_size(path));
    EXPECT_GE(reports.size(), 50u);  // about every percent
    EXPECT_TRUE(std::is_sorted(reports.begin(), reports.end()));
    EXPECT_EQ(reports.back(), total);

    int calls = 0;
    try {
        Model::load(path, {.progress = [&](size_t, size_t) { return ++calls < 10; }});
        FAIL() << "the load was not cancelled";
    } catch (const LoadCancelled& error) {
        EXPECT_NE(std::string(error.what()).find("cancelled"), std::string::npos);
    }
    EXPECT_EQ(calls, 10);
}

// Found by gguf_header_fuzz: a download's estimate builds the model from the file's header
// alone, and Phi-3's fused q/k/v and gate/up tensors were sliced by offsetting their null data
// pointer (undefined behaviour, and made-up addresses where there are no bytes).
TEST(Model, FusedTensorsOfAHeaderAloneHaveNoData) {
    const auto bytes = test::read_bytes(test::model_path("synth-phi3-256-Q4_K_M.gguf"));
    const Model model(std::make_unique<GgufFile>(
        GgufBeginning{bytes, bytes.size(), "synth-phi3-256-Q4_K_M.gguf"}));
    ASSERT_FALSE(model.weights().layers.empty());
    for (const auto& layer : model.weights().layers) {
        EXPECT_EQ(layer.query.data, nullptr);
        EXPECT_EQ(layer.key.data, nullptr);
        EXPECT_EQ(layer.value.data, nullptr);
        EXPECT_EQ(layer.up.data, nullptr);
        EXPECT_EQ(layer.gate.data, nullptr);
    }
}

}  // namespace
}  // namespace hearth
