#include "bench/synth_shapes.h"

#include <array>
#include <cstdint>
#include <string>
#include <utility>

namespace hearth::bench {
namespace {

// Dimensions from each model's Hugging Face config.json.
const std::array<std::pair<std::string_view, SynthShape>, 6> kShapes{{
    {"tinyllama-1.1b",
     {.architecture = "llama",
      .layers = 22,
      .embedding = 2048,
      .heads = 32,
      .kv_heads = 4,
      .head_dim = 64,
      .ffn = 5632,
      .vocab = 32000,
      .context = 2048}},
    {"smollm-135m",
     {.architecture = "llama",
      .layers = 30,
      .embedding = 576,
      .heads = 9,
      .kv_heads = 3,
      .head_dim = 64,
      .ffn = 1536,
      .vocab = 32000,
      .context = 2048}},
    {"qwen3-0.6b",
     {.architecture = "qwen3",
      .layers = 28,
      .embedding = 1024,
      .heads = 16,
      .kv_heads = 8,
      .head_dim = 128,
      .ffn = 3072,
      .vocab = 151936,
      .context = 40960,
      .rope_base = 1e6,
      .rms_epsilon = 1e-6f,
      .tied_output = true,
      .query_key_norm = true,
      .vocabulary = VocabularySource::Copied}},
    {"gemma3-1b",
     {.architecture = "gemma3",
      .layers = 26,
      .embedding = 1152,
      .heads = 4,
      .kv_heads = 1,
      .head_dim = 256,
      .ffn = 6912,
      .vocab = 262144,
      .context = 32768,
      .rope_base = 1e6,
      .rms_epsilon = 1e-6f,
      .tied_output = true,
      .query_key_norm = true,
      .post_norms = true,
      .sliding_window = 512,
      .local_rope_base = 10000.0,
      .vocabulary = VocabularySource::SyntheticSpm}},
    // Qwen3-30B-A3B's layers (48 of them there): 12 keep the Q4_K_M file under 8 GB (8.10 B
    // parameters, 1.31 B active; 4.96 GB of tensors). Its vocabulary and untied output as
    // released.
    {"qwen3moe-30b-a3b",
     {.architecture = "qwen3moe",
      .layers = 12,
      .embedding = 2048,
      .heads = 32,
      .kv_heads = 4,
      .head_dim = 128,
      .ffn = 6144,
      .vocab = 151936,
      .context = 40960,
      .rope_base = 1e6,
      .rms_epsilon = 1e-6f,
      .query_key_norm = true,
      .vocabulary = VocabularySource::Copied,
      .experts = 128,
      .experts_used = 8,
      .expert_ffn = 768}},
    // gpt-oss-20b's layers (24 of them there): 8 keep the MXFP4_MOE file near 5 GB (7.74 B
    // parameters, 2.17 B active; 4.85 GB of tensors, 15.5 GB in F16). Written in F16 for
    // llama-quantize to make MXFP4_MOE of, as gpt-oss is released; its o200k vocabulary is not
    // at hand, so the Qwen2 one is copied and padded to o200k's size.
    {"gpt-oss-20b",
     {.architecture = "gpt-oss",
      .layers = 8,
      .embedding = 2880,
      .heads = 64,
      .kv_heads = 8,
      .head_dim = 64,
      .ffn = 2880,
      .vocab = 201088,
      .context = 131072,
      .rope_base = 150000.0,
      .rms_epsilon = 1e-5f,
      .sliding_window = 128,
      .vocabulary = VocabularySource::Copied,
      .experts = 32,
      .experts_used = 4,
      .expert_ffn = 2880,
      .biases = true,
      .attention_sinks = true,
      .ffn_norm_is_post_attention = true,
      .yarn_factor = 32.0,
      .yarn_original_context = 4096}},
}};

void write_experts(const SynthShape& shape, const std::string& prefix, GgufWriter& writer) {
    const std::pair<const char*, int> counts[] = {
        {"expert_count", shape.experts},
        {"expert_used_count", shape.experts_used},
        {"expert_feed_forward_length", shape.expert_ffn},
    };
    for (const auto& [key, value] : counts)
        writer.set(prefix + key, GgufValue(static_cast<uint32_t>(value)));
}

void write_yarn(const SynthShape& shape, const std::string& prefix, GgufWriter& writer) {
    writer.set(prefix + "rope.scaling.type", GgufValue(std::string("yarn")));
    writer.set(prefix + "rope.scaling.factor", GgufValue(static_cast<float>(shape.yarn_factor)));
    writer.set(prefix + "rope.scaling.original_context_length",
               GgufValue(static_cast<uint32_t>(shape.yarn_original_context)));
}

}  // namespace

const SynthShape* find_shape(std::string_view name) {
    for (const auto& [known, shape] : kShapes) {
        if (known == name) return &shape;
    }
    return nullptr;
}

std::string shape_names() {
    std::string names;
    for (const auto& [known, shape] : kShapes) {
        names += names.empty() ? "" : "|";
        names += known;
    }
    return names;
}

void write_shape_metadata(const SynthShape& shape, GgufWriter& writer) {
    const std::string prefix = shape.architecture + ".";
    const std::pair<const char*, int> counts[] = {
        {"context_length", shape.context},
        {"embedding_length", shape.embedding},
        {"block_count", shape.layers},
        {"feed_forward_length", shape.ffn},
        {"attention.head_count", shape.heads},
        {"attention.head_count_kv", shape.kv_heads},
        {"attention.key_length", shape.head_dim},
        {"attention.value_length", shape.head_dim},
        {"vocab_size", shape.vocab},
    };
    for (const auto& [key, value] : counts)
        writer.set(prefix + key, GgufValue(static_cast<uint32_t>(value)));
    writer.set(prefix + "rope.freq_base", GgufValue(static_cast<float>(shape.rope_base)));
    writer.set(prefix + "attention.layer_norm_rms_epsilon", GgufValue(shape.rms_epsilon));
    if (shape.sliding_window > 0) {
        writer.set(prefix + "attention.sliding_window",
                   GgufValue(static_cast<uint32_t>(shape.sliding_window)));
    }
    // Both programs default Gemma 3's local layers to 10000; stated, so neither has to.
    if (shape.local_rope_base > 0.0) {
        writer.set(prefix + "rope.freq_base_swa",
                   GgufValue(static_cast<float>(shape.local_rope_base)));
    }
    if (shape.mixture_of_experts()) {
        // As llama.cpp's conversion states it for these architectures.
        writer.set(prefix + "rope.dimension_count",
                   GgufValue(static_cast<uint32_t>(shape.head_dim)));
        write_experts(shape, prefix, writer);
    }
    if (shape.yarn_factor > 0.0) write_yarn(shape, prefix, writer);
}

}  // namespace hearth::bench
