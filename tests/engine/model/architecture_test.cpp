// Each model family on its real shared file: the configuration the loader reads (what makes the
// family differ from Llama), and the file broken in the ways that matter for that family (a
// tensor it needs missing, or the wrong shape), each a load error naming the part.
#include "engine/model/architecture.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "engine/format/gguf_writer.h"
#include "engine/model/load_error.h"
#include "engine/model/model.h"
#include "engine/model/rope.h"
#include "tests/support/shared_data.h"
#include "tests/support/temp_files.h"

namespace hearth {
namespace {

std::unique_ptr<Model> load(const std::string& name) {
    return Model::load(test::model_path(name));
}

TEST(Architecture, Qwen3TakesItsHeadSizeFromTheKeyLength) {
    const auto model = load("synth-qwen3-256.gguf");
    const auto& c = model->config();
    EXPECT_EQ(c.architecture, Architecture::Qwen3);
    EXPECT_EQ(c.head_dim, 128);  // n_embd / n_head would be 64
    EXPECT_EQ(c.query_dim(), 512);
    EXPECT_TRUE(c.query_key_norm);
    EXPECT_EQ(c.rope.style, RopeStyle::Neox);
    EXPECT_EQ(c.rope.base, 1e6);
    EXPECT_EQ(model->weights().layers[1].key_norm.size(), 128u);
    EXPECT_TRUE(model->weights().layers[0].query_bias.empty());
    EXPECT_TRUE(c.tied_embeddings);
}

TEST(Architecture, Gemma2AlternatesLocalAndGlobalLayersAndCapsItsScores) {
    const auto model = load("synth-gemma2-256.gguf");
    const auto& c = model->config();
    EXPECT_EQ(c.architecture, Architecture::Gemma2);
    EXPECT_EQ(c.layers[0].window, 32);
    EXPECT_EQ(c.layers[1].window, 0);
    EXPECT_EQ(c.attention_softcap, 1.0f);
    EXPECT_EQ(c.final_softcap, 3.0f);
    EXPECT_EQ(c.embedding_scale, 16.0f);
    EXPECT_EQ(c.activation, Activation::GeluTanh);
    EXPECT_TRUE(c.post_norms);
    EXPECT_FALSE(c.query_key_norm);
    EXPECT_FLOAT_EQ(c.attention_scale, 0.125f);
    EXPECT_TRUE(c.tied_embeddings);
}

TEST(Architecture, Gemma3RotatesItsLocalLayersWithTheirOwnBase) {
    const auto model = load("synth-gemma3-256.gguf");
    const auto& c = model->config();
    for (int layer = 0; layer < 5; ++layer) {
        EXPECT_EQ(c.layers[layer].window, 32) << layer;
        EXPECT_EQ(c.layers[layer].rope, LayerConfig::Rope::Local) << layer;
    }
    EXPECT_EQ(c.layers[5].window, 0);
    EXPECT_EQ(c.layers[5].rope, LayerConfig::Rope::Global);
    EXPECT_EQ(c.attention_softcap, 0.0f);
    EXPECT_TRUE(c.query_key_norm);
    const LayerRopes ropes(*model, 512);
    ASSERT_EQ(ropes.kinds().size(), 2u);
    // Local: base 10000, unscaled; global: base 1e6, positions / 8.
    EXPECT_DOUBLE_EQ(ropes.layer(0)->frequencies()[1], std::pow(10000.0, -2.0 / 64));
    EXPECT_DOUBLE_EQ(ropes.layer(5)->frequencies()[1], std::pow(1e6, -2.0 / 64) / 8);
}

TEST(Architecture, Phi3SplitsItsFusedTensorsWithoutCopies) {
    const auto model = load("synth-phi3-256.gguf");
    const auto& c = model->config();
    const auto& layer = model->weights().layers[0];
    const auto* fused = model->file().find_tensor("blk.0.attn_qkv.weight");
    ASSERT_NE(fused, nullptr);
    EXPECT_EQ(layer.query.data, fused->data);
    EXPECT_EQ(layer.key.data, fused->data + 256 * layer.query.row_bytes);
    EXPECT_EQ(layer.value.data, fused->data + (256 + 128) * layer.query.row_bytes);
    EXPECT_EQ(layer.value.rows, 128);
    const auto* up = model->file().find_tensor("blk.0.ffn_up.weight");
    EXPECT_EQ(layer.gate.data, up->data);
    EXPECT_EQ(layer.up.data, up->data + 512 * layer.up.row_bytes);
    EXPECT_EQ(c.rope.dimensions, 48);  // partial rotation of 64-wide heads
    EXPECT_FLOAT_EQ(c.rope.magnitude, 1.0801234f);
    EXPECT_EQ(c.rope_original_context, 4096);
}

// LongRoPE: the short factors up to the original context, the long ones beyond it.
TEST(Architecture, Phi3ChoosesItsRopeFactorsByTheContextLength) {
    const auto model = load("synth-phi3-256.gguf");
    const auto& weights = model->weights();
    ASSERT_EQ(weights.rope_factors_short.size(), 24u);
    ASSERT_EQ(weights.rope_factors_long.size(), 24u);
    const double base = std::pow(10000.0, -2.0 * 23 / 48);
    EXPECT_DOUBLE_EQ(LayerRopes(*model, 4096).layer(0)->frequencies()[23],
                     base / weights.rope_factors_short[23]);
    EXPECT_DOUBLE_EQ(LayerRopes(*model, 4097).layer(1)->frequencies()[23],
                     base / weights.rope_factors_long[23]);
    EXPECT_NE(weights.rope_factors_short[23], weights.rope_factors_long[23]);
}

TEST(Architecture, SmolLM3LeavesEveryFourthLayerUnrotated) {
    const auto model = load("synth-smollm3-256.gguf");
    const LayerRopes ropes(*model, 512);
    for (int layer = 0; layer < 3; ++layer) EXPECT_NE(ropes.layer(layer), nullptr) << layer;
    EXPECT_EQ(ropes.layer(3), nullptr);
    EXPECT_EQ(model->config().rope.style, RopeStyle::AdjacentPairs);
}

TEST(Architecture, Qwen3MoeReadsItsExpertsAsViewsOfTheirStackedTensors) {
    const auto model = load("synth-qwen3moe-256.gguf");
    const auto& c = model->config();
    EXPECT_EQ(c.architecture, Architecture::Qwen3Moe);
    EXPECT_EQ(c.expert_count, 4);
    EXPECT_EQ(c.experts_used, 2);
    EXPECT_EQ(c.feed_forward_length, 256);  // expert_feed_forward_length; the file's 512 is unused
    EXPECT_EQ(c.head_dim, 128);
    EXPECT_TRUE(c.query_key_norm);
    EXPECT_EQ(c.rope.style, RopeStyle::Neox);
    const auto& layer = model->weights().layers[1];
    EXPECT_EQ(layer.router.rows, 4);
    EXPECT_EQ(layer.router.type, TensorType::F32);
    EXPECT_EQ(layer.gate.data, nullptr);
    const auto* down = model->file().find_tensor("blk.1.ffn_down_exps.weight");
    ASSERT_NE(down, nullptr);
    EXPECT_EQ(layer.expert_down.data, down->data);
    const WeightMatrix third = expert_matrix(layer.expert_down, c.expert_count, 2);
    EXPECT_EQ(third.data, down->data + 2 * 256 * layer.expert_down.row_bytes);
    EXPECT_EQ(third.rows, 256);
    EXPECT_EQ(third.columns, 256);
    const WeightMatrix last_gate = expert_matrix(layer.expert_gate, c.expert_count, 3);
    EXPECT_EQ(last_gate.row(last_gate.rows), layer.expert_gate.row(layer.expert_gate.rows));
}

TEST(Architecture, GptOssReadsItsBiasesSinksAndBandedLayers) {
    const auto model = load("synth-gpt-oss-256.gguf");
    const auto& c = model->config();
    EXPECT_EQ(c.architecture, Architecture::GptOss);
    EXPECT_EQ(c.expert_count, 4);
    EXPECT_EQ(c.experts_used, 2);
    EXPECT_EQ(c.feed_forward_length, 256);
    EXPECT_EQ(c.activation, Activation::ClampedSwiglu);
    EXPECT_EQ(c.rope.style, RopeStyle::Neox);
    EXPECT_EQ(c.layers[0].window, 32);  // even layers banded, odd ones full
    EXPECT_EQ(c.layers[1].window, 0);
    EXPECT_FALSE(c.tied_embeddings);
    EXPECT_FALSE(c.post_norms);
    const auto& layer = model->weights().layers[1];
    EXPECT_EQ(layer.query_bias.size(), 256u);
    EXPECT_EQ(layer.key_bias.size(), 128u);
    EXPECT_EQ(layer.attention_output_bias.size(), 256u);
    EXPECT_EQ(layer.router_bias.size(), 4u);
    EXPECT_EQ(layer.expert_down_bias.size(), 4u * 256u);
    // The pre-FFN norm is the file's post_attention_norm.
    const auto* norm = model->file().find_tensor("blk.1.post_attention_norm.weight");
    ASSERT_NE(norm, nullptr);
    EXPECT_EQ(layer.ffn_norm.front(), reinterpret_cast<const float*>(norm->data)[0]);
    EXPECT_TRUE(layer.post_attention_norm.empty());
    const auto* sinks = model->file().find_tensor("blk.1.attn_sinks.weight");
    ASSERT_NE(sinks, nullptr);
    ASSERT_EQ(layer.attention_sinks.size(), 4u);
    EXPECT_EQ(layer.attention_sinks[3], reinterpret_cast<const float*>(sinks->data)[3]);
    // Expert 2's biases: the third row of each [length, experts] tensor.
    const auto* up_bias = model->file().find_tensor("blk.1.ffn_up_exps.bias");
    ASSERT_NE(up_bias, nullptr);
    const FeedForwardWeights expert = expert_weights(layer, c.expert_count, 2);
    ASSERT_EQ(expert.up_bias.size(), 256u);
    EXPECT_EQ(expert.up_bias[5], reinterpret_cast<const float*>(up_bias->data)[2 * 256 + 5]);
    EXPECT_EQ(expert.down_bias.size(), 256u);
    EXPECT_EQ(expert.down.data, layer.expert_down.row(2 * 256));
}

// YaRN by the README's rule on the file's numbers (base 150000, 64 rotated dimensions, factor
// 32 over an original context of 4096): the ramp runs from pair floor(8.09) = 8 to
// ceil(17.4) = 18; pairs below keep their frequency, pairs from 18 on are divided by 32, pair 13
// is halfway; cos and sin carry 1 + 0.1 ln 32.
TEST(Architecture, GptOssRotatesWithYarn) {
    const auto model = load("synth-gpt-oss-256.gguf");
    const auto& rope = model->config().rope;
    EXPECT_EQ(rope.yarn.factor, 32.0);
    EXPECT_EQ(rope.yarn.original_context, 4096);
    EXPECT_FLOAT_EQ(rope.magnitude, 1.0f + 0.1f * std::log(32.0f));
    const LayerRopes ropes(*model, 1024);
    for (const int layer : {0, 1}) {
        const auto& frequencies = ropes.layer(layer)->frequencies();
        ASSERT_EQ(frequencies.size(), 32u);
        const auto plain = [](int pair) { return std::pow(150000.0, -2.0 * pair / 64); };
        for (const int pair : {0, 7, 8}) EXPECT_DOUBLE_EQ(frequencies[pair], plain(pair)) << pair;
        for (const int pair : {18, 31})
            EXPECT_DOUBLE_EQ(frequencies[pair], plain(pair) / 32) << pair;
        EXPECT_DOUBLE_EQ(frequencies[13], plain(13) * (0.5 / 32 + 0.5));
        EXPECT_DOUBLE_EQ(frequencies[9], plain(9) * (0.1 / 32 + 0.9));
        EXPECT_FLOAT_EQ(ropes.layer(layer)->magnitude(), rope.magnitude);
    }
}

TEST(Architecture, UnsupportedFamiliesAreRefusedWithWhatTheyAre) {
    EXPECT_NE(unsupported_architecture_text("qwen35").find("a hybrid linear-attention model"),
              std::string::npos);
    EXPECT_NE(unsupported_architecture_text("mixtral").find("mixture-of-experts"),
              std::string::npos);
    const auto text = unsupported_architecture_text("gpt-neox");
    EXPECT_NE(text.find("'gpt-neox' is not supported"), std::string::npos);
    EXPECT_NE(text.find("gemma3"), std::string::npos) << text;
    EXPECT_EQ(parse_architecture("gemma3"), Architecture::Gemma3);
    EXPECT_EQ(parse_architecture("gpt-oss"), Architecture::GptOss);
    EXPECT_EQ(parse_architecture("mixtral"), std::nullopt);
}

// A shared model file rewritten with one change, then loaded: the load error, or "" if none.
struct Edit {
    std::string drop_tensor;
    std::string reshape_tensor;  // its first dimension halved, the second doubled
    std::string drop_key;
};

std::string load_error_after(const std::string& name, const Edit& edit) {
    const auto source = load(name);
    GgufWriter writer;
    for (const auto& [key, value] : source->file().metadata()) {
        if (key != edit.drop_key && key != "general.alignment") writer.set(key, value);
    }
    for (const auto& tensor : source->file().tensors()) {
        if (tensor.name == edit.drop_tensor) continue;
        auto shape = tensor.shape;
        if (tensor.name == edit.reshape_tensor) {
            if (shape.size() == 1) shape.push_back(1);
            shape[0] /= 2;
            shape[1] *= 2;
        }
        writer.add_tensor(tensor.name, tensor.type, shape,
                          std::vector<std::byte>(tensor.data, tensor.data + tensor.bytes));
    }
    const test::TempDirectory directory;
    try {
        Model::load(directory.write("edited.gguf", writer.serialize()));
    } catch (const LoadError& error) {
        return error.what();
    }
    return "";
}

struct HostileCase {
    std::string file;
    Edit edit;
    std::string expected;  // part of the error
};

class HostileArchitectureTest : public testing::TestWithParam<HostileCase> {};

TEST_P(HostileArchitectureTest, IsALoadErrorNamingThePart) {
    const auto& c = GetParam();
    const auto error = load_error_after(c.file, c.edit);
    EXPECT_NE(error.find(c.expected), std::string::npos) << "error: " << error;
}

const HostileCase kHostileCases[] = {
    {"synth-qwen3-256.gguf",
     {.drop_tensor = "blk.1.attn_k_norm.weight"},
     "no tensor 'blk.1.attn_k_norm.weight'"},
    {"synth-qwen3-256.gguf",
     {.reshape_tensor = "blk.0.attn_q_norm.weight"},
     "'blk.0.attn_q_norm.weight' has shape [64, 2], expected [128]"},
    {"synth-qwen3-256.gguf",
     {.reshape_tensor = "blk.0.attn_q.weight"},
     "'blk.0.attn_q.weight' has shape [128, 1024], expected [256, 512]"},
    {"synth-gemma2-256.gguf",
     {.drop_tensor = "blk.1.post_ffw_norm.weight"},
     "no tensor 'blk.1.post_ffw_norm.weight'"},
    {"synth-gemma2-256.gguf",
     {.drop_tensor = "blk.0.post_attention_norm.weight"},
     "no tensor 'blk.0.post_attention_norm.weight'"},
    {"synth-gemma2-256.gguf",
     {.drop_key = "gemma2.attention.head_count"},
     "'gemma2.attention.head_count' is missing"},
    {"synth-gemma3-256.gguf",
     {.drop_tensor = "blk.5.attn_q_norm.weight"},
     "no tensor 'blk.5.attn_q_norm.weight'"},
    {"synth-gemma3-256.gguf",
     {.reshape_tensor = "blk.2.ffn_gate.weight"},
     "'blk.2.ffn_gate.weight' has shape [128, 512], expected [256, 256]"},
    {"synth-phi3-256.gguf",
     {.drop_tensor = "blk.0.attn_qkv.weight"},
     "no tensor 'blk.0.attn_qkv.weight'"},
    {"synth-phi3-256.gguf",
     {.reshape_tensor = "blk.1.attn_qkv.weight"},
     "'blk.1.attn_qkv.weight' has shape [128, 1024], expected [256, 512]"},
    {"synth-phi3-256.gguf",
     {.reshape_tensor = "blk.0.ffn_up.weight"},
     "'blk.0.ffn_up.weight' has shape [128, 2048], expected [256, 1024]"},
    {"synth-phi3-256.gguf",
     {.reshape_tensor = "rope_factors_long.weight"},
     "'rope_factors_long.weight' has shape"},
    {"synth-qwen3moe-256.gguf",
     {.drop_tensor = "blk.1.ffn_gate_inp.weight"},
     "no tensor 'blk.1.ffn_gate_inp.weight'"},
    {"synth-qwen3moe-256.gguf",
     {.reshape_tensor = "blk.0.ffn_gate_inp.weight"},
     "'blk.0.ffn_gate_inp.weight' has shape [128, 8], expected [256, 4]"},
    {"synth-qwen3moe-256.gguf",
     {.drop_tensor = "blk.0.ffn_down_exps.weight"},
     "no tensor 'blk.0.ffn_down_exps.weight'"},
    {"synth-qwen3moe-256.gguf",
     {.reshape_tensor = "blk.1.ffn_up_exps.weight"},
     "'blk.1.ffn_up_exps.weight' has shape [128, 512, 4], expected [256, 256, 4]"},
    {"synth-qwen3moe-256.gguf",
     {.drop_key = "qwen3moe.expert_used_count"},
     "'qwen3moe.expert_used_count' is missing"},
    {"synth-qwen3moe-256.gguf",
     {.drop_key = "qwen3moe.expert_feed_forward_length"},
     "'qwen3moe.expert_feed_forward_length' is missing"},
    {"synth-gpt-oss-256.gguf",
     {.drop_tensor = "blk.1.attn_sinks.weight"},
     "no tensor 'blk.1.attn_sinks.weight'"},
    {"synth-gpt-oss-256.gguf",
     {.reshape_tensor = "blk.0.attn_sinks.weight"},
     "'blk.0.attn_sinks.weight' has shape [2, 2], expected [4]"},
    {"synth-gpt-oss-256.gguf",
     {.drop_tensor = "blk.0.attn_k.bias"},
     "no tensor 'blk.0.attn_k.bias'"},
    {"synth-gpt-oss-256.gguf",
     {.drop_tensor = "blk.1.attn_output.bias"},
     "no tensor 'blk.1.attn_output.bias'"},
    {"synth-gpt-oss-256.gguf",
     {.drop_tensor = "blk.0.post_attention_norm.weight"},
     "no tensor 'blk.0.post_attention_norm.weight'"},
    {"synth-gpt-oss-256.gguf",
     {.drop_tensor = "blk.1.ffn_gate_inp.bias"},
     "no tensor 'blk.1.ffn_gate_inp.bias'"},
    {"synth-gpt-oss-256.gguf",
     {.drop_tensor = "blk.0.ffn_gate_exps.bias"},
     "no tensor 'blk.0.ffn_gate_exps.bias'"},
    {"synth-gpt-oss-256.gguf",
     {.reshape_tensor = "blk.1.ffn_down_exps.bias"},
     "'blk.1.ffn_down_exps.bias' has shape [128, 8], expected [256, 4]"},
    {"synth-gpt-oss-256.gguf",
     {.reshape_tensor = "blk.0.ffn_up_exps.weight"},
     "'blk.0.ffn_up_exps.weight' has shape [128, 512, 4], expected [256, 256, 4]"},
    {"synth-gpt-oss-256.gguf", {.drop_tensor = "output.weight"}, "no tensor 'output.weight'"},
    {"synth-gpt-oss-256.gguf",
     {.drop_key = "gpt-oss.attention.sliding_window"},
     "'gpt-oss.attention.sliding_window' is missing"},
    {"synth-gpt-oss-256.gguf",
     {.drop_key = "gpt-oss.rope.scaling.factor"},
     "'gpt-oss.rope.scaling.factor' is missing (YaRN"},
    {"synth-gpt-oss-256.gguf",
     {.drop_key = "gpt-oss.expert_used_count"},
     "'gpt-oss.expert_used_count' is missing"},
    {"synth-smollm3-256.gguf",
     {.drop_tensor = "blk.3.ffn_gate.weight"},
     "no tensor 'blk.3.ffn_gate.weight'"},
    {"synth-smollm3-256.gguf",
     {.reshape_tensor = "output_norm.weight"},
     "'output_norm.weight' has shape [128, 2], expected [256]"},
};

INSTANTIATE_TEST_SUITE_P(SharedFiles, HostileArchitectureTest, testing::ValuesIn(kHostileCases),
                         [](const auto& info) {
                             std::string name =
                                 info.param.file.substr(6, info.param.file.find('-', 6) - 6);
                             return name + "_" + std::to_string(info.index);
                         });

TEST(HostileArchitecture, TheUneditedFilesLoad) {
    for (const char* name :
         {"synth-qwen3-256.gguf", "synth-qwen3moe-256.gguf", "synth-gemma2-256.gguf",
          "synth-gemma3-256.gguf", "synth-phi3-256.gguf", "synth-smollm3-256.gguf",
          "synth-gpt-oss-256.gguf"}) {
        EXPECT_EQ(load_error_after(name, {}), "") << name;
    }
}

}  // namespace
}  // namespace hearth
