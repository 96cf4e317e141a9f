// The MoE speed-test shapes lay their files out as llama.cpp's own are: the same tensors, shapes
// and hyperparameter keys as the shared reference files (synth-qwen3moe-256 and
// synth-gpt-oss-256, written by an independent script and read by llama.cpp), once the shape is
// given the reference's small dimensions; and at full size, the released models' dimensions.
#include "bench/synth_tensor_plan.h"

#include <gtest/gtest.h>

#include <QJsonArray>
#include <QJsonObject>

#include <map>
#include <set>

#include "bench/quant_recipe.h"
#include "engine/format/gguf_file.h"
#include "engine/format/gguf_writer.h"
#include "tests/support/shared_data.h"

namespace hearth::bench {
namespace {

QJsonObject reference(const std::string& stem) {
    return test::load_json(test::fixture_path("models/" + stem + ".json"))["model"].toObject();
}

// `shape` with the dimensions the reference file's metadata states.
SynthShape with_reference_dimensions(SynthShape shape, const QJsonObject& metadata) {
    const auto number = [&](const char* key) {
        return metadata[QString::fromStdString(shape.architecture + "." + key)].toInt();
    };
    shape.layers = number("block_count");
    shape.embedding = number("embedding_length");
    shape.heads = number("attention.head_count");
    shape.kv_heads = number("attention.head_count_kv");
    shape.head_dim = number("attention.key_length");
    shape.ffn = number("feed_forward_length");
    shape.vocab = number("vocab_size");
    shape.context = number("context_length");
    shape.experts = number("expert_count");
    shape.experts_used = number("expert_used_count");
    shape.expert_ffn = number("expert_feed_forward_length");
    if (shape.sliding_window > 0) shape.sliding_window = number("attention.sliding_window");
    return shape;
}

std::map<std::string, std::vector<uint64_t>> planned(const SynthShape& shape) {
    std::map<std::string, std::vector<uint64_t>> tensors;
    for (const auto& tensor : tensor_plan(shape)) tensors[tensor.name] = tensor.shape();
    return tensors;
}

std::map<std::string, std::vector<uint64_t>> referenced(const QJsonObject& model) {
    std::map<std::string, std::vector<uint64_t>> tensors;
    for (const auto& value : model["tensors"].toArray()) {
        const auto tensor = value.toObject();
        auto& shape = tensors[tensor["name"].toString().toStdString()];
        for (const auto& extent : tensor["ne"].toArray()) shape.push_back(extent.toInteger());
    }
    return tensors;
}

// The architecture's keys a shape writes, parsed back from a written header.
std::unique_ptr<GgufFile> written_metadata(const SynthShape& shape) {
    GgufWriter writer;
    writer.set("general.architecture", GgufValue(shape.architecture));
    write_shape_metadata(shape, writer);
    const auto bytes = writer.serialize();  // parsed into the file's own metadata
    return std::make_unique<GgufFile>(GgufBeginning{bytes, bytes.size(), "shape"});
}

// Every hyperparameter key of the reference is written, with the reference's value where the
// dimensions are the reference's; nothing else is.
void expect_reference_metadata(const SynthShape& shape, const QJsonObject& metadata) {
    const auto file = written_metadata(shape);
    std::set<std::string> expected, written;
    for (const auto& key : metadata.keys()) {
        if (!key.startsWith("general.") && !key.startsWith("tokenizer."))
            expected.insert(key.toStdString());
    }
    for (const auto& [key, value] : file->metadata()) {
        if (key.starts_with("general.")) continue;
        written.insert(key);
        const auto reference = metadata[QString::fromStdString(key)];
        if (const auto* text = value.as_string()) {
            EXPECT_EQ(*text, reference.toString().toStdString()) << key;
        } else {
            EXPECT_FLOAT_EQ(static_cast<float>(*value.as_number()),
                            static_cast<float>(reference.toDouble()))
                << key;
        }
    }
    EXPECT_EQ(written, expected);
}

TEST(SynthTensorPlan, TheQwen3MoeShapeIsLaidOutAsLlamaCppsFiles) {
    const auto model = reference("synth-qwen3moe-256");
    const auto metadata = model["metadata"].toObject();
    SynthShape shape = with_reference_dimensions(*find_shape("qwen3moe-30b-a3b"), metadata);
    shape.rope_base = metadata["qwen3moe.rope.freq_base"].toDouble();
    shape.rms_epsilon =
        static_cast<float>(metadata["qwen3moe.attention.layer_norm_rms_epsilon"].toDouble());
    EXPECT_EQ(planned(shape), referenced(model));
    expect_reference_metadata(shape, metadata);
}

TEST(SynthTensorPlan, TheGptOssShapeIsLaidOutAsLlamaCppsFiles) {
    const auto model = reference("synth-gpt-oss-256");
    const auto metadata = model["metadata"].toObject();
    const SynthShape shape = with_reference_dimensions(*find_shape("gpt-oss-20b"), metadata);
    EXPECT_EQ(planned(shape), referenced(model));
    expect_reference_metadata(shape, metadata);
    // Biases, sinks and routers are F32 in every mix, as llama-quantize leaves them.
    for (const auto& tensor : tensor_plan(shape)) {
        const bool vector = tensor.name.ends_with(".bias") ||
                            tensor.name.ends_with("sinks.weight") ||
                            tensor.name.ends_with("ffn_gate_inp.weight");
        EXPECT_EQ(tensor.role == TensorRole::Vector, vector) << tensor.name;
    }
}

// Q4_K_M as llama-quantize made synth-qwen3moe-256-Q4_K_M of the reference: every tensor's type,
// the stacked ffn_down_exps of the layers with more bits in Q6_K and the router left in F32.
TEST(SynthTensorPlan, TheQwen3MoeQ4KMMixIsLlamaQuantizes) {
    const auto model = reference("synth-qwen3moe-256-Q4_K_M");
    const SynthShape shape =
        with_reference_dimensions(*find_shape("qwen3moe-30b-a3b"), model["metadata"].toObject());
    std::map<std::string, std::string> expected, picked;
    for (const auto& value : model["tensors"].toArray()) {
        const auto tensor = value.toObject();
        expected[tensor["name"].toString().toStdString()] = tensor["type"].toString().toStdString();
    }
    for (const auto& tensor : tensor_plan(shape)) {
        picked[tensor.name] =
            tensor_type_name(static_cast<uint32_t>(pick_type(QuantMix::Q4_K_M, tensor, shape)));
    }
    EXPECT_EQ(picked, expected);
    EXPECT_EQ(picked["blk.1.ffn_down_exps.weight"], "Q6_K");
}

// At full size: Qwen3-30B-A3B's and gpt-oss-20b's layers, as their config.json files state them.
TEST(SynthTensorPlan, TheMoeShapesHaveTheReleasedModelsLayers) {
    const auto qwen = written_metadata(*find_shape("qwen3moe-30b-a3b"));
    const std::map<std::string, double> qwen_keys{{"qwen3moe.embedding_length", 2048},
                                                  {"qwen3moe.attention.head_count", 32},
                                                  {"qwen3moe.attention.head_count_kv", 4},
                                                  {"qwen3moe.attention.key_length", 128},
                                                  {"qwen3moe.expert_count", 128},
                                                  {"qwen3moe.expert_used_count", 8},
                                                  {"qwen3moe.expert_feed_forward_length", 768},
                                                  {"qwen3moe.vocab_size", 151936},
                                                  {"qwen3moe.rope.freq_base", 1e6},
                                                  {"qwen3moe.block_count", 12}};
    for (const auto& [key, value] : qwen_keys)
        EXPECT_EQ(qwen->find(key)->as_number(), value) << key;
    const auto oss = written_metadata(*find_shape("gpt-oss-20b"));
    const std::map<std::string, double> oss_keys{
        {"gpt-oss.embedding_length", 2880},
        {"gpt-oss.attention.head_count", 64},
        {"gpt-oss.attention.head_count_kv", 8},
        {"gpt-oss.attention.key_length", 64},
        {"gpt-oss.expert_count", 32},
        {"gpt-oss.expert_used_count", 4},
        {"gpt-oss.expert_feed_forward_length", 2880},
        {"gpt-oss.attention.sliding_window", 128},
        {"gpt-oss.rope.freq_base", 150000},
        {"gpt-oss.rope.scaling.factor", 32},
        {"gpt-oss.rope.scaling.original_context_length", 4096},
        {"gpt-oss.block_count", 8}};
    for (const auto& [key, value] : oss_keys) EXPECT_EQ(oss->find(key)->as_number(), value) << key;
}

}  // namespace
}  // namespace hearth::bench
