// The shapes hearth-synth-model writes: the models benchmarks compare on, with the
// hyperparameters their files state so that Hearth and llama.cpp read them alike.
#pragma once

#include <string>
#include <string_view>

#include "engine/format/gguf_writer.h"

namespace hearth::bench {

struct SynthShape {
    std::string architecture;  // general.architecture, and the prefix of its keys
    int layers = 0, embedding = 0, heads = 0, kv_heads = 0;
    int head_dim = 0;
    int ffn = 0, vocab = 0, context = 0;
    float rms_epsilon = 1e-5f;

    int query_width() const { return heads * head_dim; }
    int kv_width() const { return kv_heads * head_dim; }
};

// nullptr for a name that is not one of the shapes.
const SynthShape* find_shape(std::string_view name);
// "a|b|c", for the usage line.
std::string shape_names();
// The architecture's hyperparameter keys.
void write_shape_metadata(const SynthShape& shape, GgufWriter& writer);

}  // namespace hearth::bench
