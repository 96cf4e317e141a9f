#include "bench/synth_shapes.h"

#include <array>
#include <cstdint>
#include <utility>

namespace hearth::bench {
namespace {

// Dimensions from each model's Hugging Face config.json.
const std::array<std::pair<std::string_view, SynthShape>, 4> kShapes{{
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
}};

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
        // Both programs default Gemma 3's local layers to 10000; stated, so neither has to.
        writer.set(prefix + "rope.freq_base_swa",
                   GgufValue(static_cast<float>(shape.local_rope_base)));
    }
}

}  // namespace hearth::bench
