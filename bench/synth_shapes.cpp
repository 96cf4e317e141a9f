#include "bench/synth_shapes.h"

#include <array>
#include <cstdint>
#include <utility>

namespace hearth::bench {
namespace {

// Dimensions from each model's Hugging Face config.json.
const std::array<std::pair<std::string_view, SynthShape>, 2> kShapes{{
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
        {"embedding_length", shape.embedding}, {"block_count", shape.layers},
        {"attention.head_count", shape.heads}, {"attention.head_count_kv", shape.kv_heads},
        {"feed_forward_length", shape.ffn},    {"context_length", shape.context},
    };
    for (const auto& [key, value] : counts)
        writer.set(prefix + key, GgufValue(static_cast<uint32_t>(value)));
    writer.set(prefix + "attention.layer_norm_rms_epsilon", GgufValue(shape.rms_epsilon));
}

}  // namespace hearth::bench
