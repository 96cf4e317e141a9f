#include "engine/model/model.h"

#include <cmath>
#include <stdexcept>

#include "engine/model/load_error.h"
#include "engine/model/model_reader.h"

namespace hearth {
namespace {

constexpr int kMaxDimension = 1 << 16;
constexpr int kMaxLayers = 1024;
constexpr int kMaxContext = 1 << 24;

bool is_gemma(Architecture architecture) {
    return architecture == Architecture::Gemma2 || architecture == Architecture::Gemma3;
}

void read_attention_shape(const ModelReader& reader, const std::string& prefix,
                          ModelConfig& config) {
    config.head_count = reader.required_int(prefix + "attention.head_count", 1, kMaxDimension);
    config.kv_head_count = reader.optional_int(prefix + "attention.head_count_kv",
                                               config.head_count, 1, config.head_count);
    const bool even_split = config.embedding_length % config.head_count == 0;
    // Qwen3 and Gemma state the head size; it need not be the embedding split over the heads.
    config.head_dim = reader.optional_int(
        prefix + "attention.key_length",
        even_split ? config.embedding_length / config.head_count : 0, 1, kMaxDimension);
    if (config.head_dim == 0 || config.head_count % config.kv_head_count != 0) {
        reader.fail("inconsistent attention shape: " + std::to_string(config.embedding_length) +
                    " embedding, " + std::to_string(config.head_count) + " heads, " +
                    std::to_string(config.kv_head_count) + " KV heads");
    }
    reader.optional_int(prefix + "attention.value_length", config.head_dim, config.head_dim,
                        config.head_dim);
}

void read_rope(const ModelReader& reader, const std::string& prefix, ModelConfig& config) {
    RopeConfig& rope = config.rope;
    rope.style =
        config.architecture == Architecture::Llama || config.architecture == Architecture::SmolLM3
            ? RopeStyle::AdjacentPairs
            : RopeStyle::Neox;
    rope.dimensions =
        reader.optional_int(prefix + "rope.dimension_count", config.head_dim, 2, config.head_dim);
    if (rope.dimensions % 2 != 0) reader.fail("rope.dimension_count must be even");
    rope.base = reader.optional_number(prefix + "rope.freq_base", 10000.0);
    if (!(rope.base > 1.0)) reader.fail("rope.freq_base must be greater than 1");
    const auto scaling = reader.file().get_string(prefix + "rope.scaling.type").value_or("none");
    if (scaling == "linear") {
        rope.scale = 1.0 / reader.optional_positive(prefix + "rope.scaling.factor", 1.0);
    } else if (scaling != "none" && scaling != "longrope" && scaling != "yarn") {
        reader.fail("RoPE scaling '" + scaling +
                    "' is not supported (only linear, YaRN and LongRoPE)");
    }
    config.rope_original_context = reader.optional_int(
        prefix + "rope.scaling.original_context_length", config.context_length, 1, kMaxContext);
    rope.magnitude =
        static_cast<float>(reader.optional_positive(prefix + "rope.scaling.attn_factor", 1.0));
    if (scaling == "yarn") {
        const std::string factor_key = prefix + "rope.scaling.factor";
        if (!reader.file().get_number(factor_key)) {
            reader.fail("metadata key '" + factor_key + "' is missing (YaRN scaling needs it)");
        }
        const double factor = reader.optional_positive(factor_key, 1.0);
        rope.yarn = {
            .factor = factor,
            .original_context = config.rope_original_context,
            .beta_fast = reader.optional_positive(prefix + "rope.scaling.yarn_beta_fast", 32.0),
            .beta_slow = reader.optional_positive(prefix + "rope.scaling.yarn_beta_slow", 1.0)};
        // YaRN's attention temperature, on cos and sin as llama.cpp applies it.
        rope.magnitude *= static_cast<float>(1.0 + 0.1 * std::log(factor));
    }

    // Gemma's local layers: their own base where the file gives one, else the global base
    // (Gemma 2) or 10000 (Gemma 3, whose local layers also skip the global scaling).
    config.local_rope = rope;
    if (config.architecture == Architecture::Gemma3) {
        config.local_rope.base = 10000.0;
        config.local_rope.scale = 1.0;
    }
    config.local_rope.base =
        reader.optional_number(prefix + "rope.freq_base_swa", config.local_rope.base);
    if (!(config.local_rope.base > 1.0)) reader.fail("rope.freq_base_swa must be greater than 1");
}

void read_layer_pattern(const ModelReader& reader, const std::string& prefix, ModelConfig& config) {
    int window = 0, pattern = 1;
    if (config.architecture == Architecture::GptOss) {
        // Banded and full attention alternate, the banded layers first.
        window = reader.required_int(prefix + "attention.sliding_window", 1, kMaxContext);
        pattern = 2;
    } else if (is_gemma(config.architecture)) {
        window = reader.optional_int(prefix + "attention.sliding_window", 0, 0, kMaxContext);
        pattern =
            reader.optional_int(prefix + "attention.sliding_window_pattern",
                                config.architecture == Architecture::Gemma2 ? 2 : 6, 1, kMaxLayers);
    }
    config.layers.resize(static_cast<size_t>(config.layer_count));
    for (int i = 0; i < config.layer_count; ++i) {
        LayerConfig& layer = config.layers[static_cast<size_t>(i)];
        // Gemma 2 and gpt-oss alternate local and global layers, Gemma 3 has five local to each
        // global.
        if (window > 0 && i % pattern < pattern - 1) {
            layer.window = window;
            layer.rope = LayerConfig::Rope::Local;
        }
        // SmolLM3 leaves every fourth layer unrotated (fixed by the architecture, not the file).
        if (config.architecture == Architecture::SmolLM3 && (i + 1) % 4 == 0) {
            layer.rope = LayerConfig::Rope::None;
        }
    }
}

// The FFN's width, and for Qwen3-MoE and gpt-oss how many experts each layer has and how many a
// token uses. An expert's width is `expert_feed_forward_length`; the file's `feed_forward_length`
// is then the dense size the experts replace, which nothing runs.
void read_feed_forward_shape(const ModelReader& reader, const std::string& prefix,
                             ModelConfig& config) {
    constexpr int kMaxWidth = 16 * kMaxDimension;
    if (config.architecture != Architecture::Qwen3Moe &&
        config.architecture != Architecture::GptOss) {
        config.feed_forward_length =
            reader.required_int(prefix + "feed_forward_length", 1, kMaxWidth);
        return;
    }
    constexpr int kMaxExperts = 1024;
    config.expert_count = reader.required_int(prefix + "expert_count", 1, kMaxExperts);
    config.experts_used = reader.required_int(prefix + "expert_used_count", 1, config.expert_count);
    config.feed_forward_length =
        reader.required_int(prefix + "expert_feed_forward_length", 1, kMaxWidth);
}

// What the family adds to the transformer every model shares.
void read_family(const ModelReader& reader, const std::string& prefix, ModelConfig& config) {
    const Architecture architecture = config.architecture;
    config.query_key_norm = architecture == Architecture::Qwen3 ||
                            architecture == Architecture::Qwen3Moe ||
                            architecture == Architecture::Gemma3;
    config.attention_scale = 1.0f / std::sqrt(static_cast<float>(config.head_dim));
    if (architecture == Architecture::GptOss) config.activation = Activation::ClampedSwiglu;
    if (!is_gemma(architecture)) return;
    config.post_norms = true;
    config.activation = Activation::GeluTanh;
    config.embedding_scale = std::sqrt(static_cast<float>(config.embedding_length));
    // Gemma 2 27B (46 layers) and Gemma 3 27B (62) were trained with queries scaled by
    // dim / heads rather than the head size; their files do not say so, llama.cpp infers it
    // from the depth, and so do we unless the file states a scale.
    const int deep = architecture == Architecture::Gemma2 ? 46 : 62;
    if (config.layer_count == deep) {
        config.attention_scale =
            1.0f / std::sqrt(static_cast<float>(config.embedding_length / config.head_count));
    }
    config.attention_scale = static_cast<float>(
        reader.optional_positive(prefix + "attention.scale", config.attention_scale));
    const auto softcap = [&](const std::string& key) {
        return static_cast<float>(reader.optional_number(prefix + key, 0.0));
    };
    if (architecture == Architecture::Gemma2) {
        config.attention_softcap = softcap("attn_logit_softcapping");
    }
    config.final_softcap = softcap("final_logit_softcapping");
    if (config.attention_softcap < 0.0f || config.final_softcap < 0.0f) {
        reader.fail("a logit soft-capping value is negative");
    }
}

ModelConfig read_config(const ModelReader& reader) {
    const GgufFile& file = reader.file();
    ModelConfig config;
    const auto name = file.get_string("general.architecture");
    if (!name) reader.fail("metadata key 'general.architecture' is missing");
    const auto architecture = parse_architecture(*name);
    if (!architecture) reader.fail(unsupported_architecture_text(*name));
    config.architecture = *architecture;
    config.architecture_name = *name;
    config.name = file.get_string("general.name").value_or(file.path().stem().string());
    const std::string& prefix = *name + ".";
    config.embedding_length = reader.required_int(prefix + "embedding_length", 1, kMaxDimension);
    config.layer_count = reader.required_int(prefix + "block_count", 1, kMaxLayers);
    read_feed_forward_shape(reader, prefix, config);
    config.context_length = reader.required_int(prefix + "context_length", 1, kMaxContext);
    read_attention_shape(reader, prefix, config);
    read_rope(reader, prefix, config);
    read_layer_pattern(reader, prefix, config);
    read_family(reader, prefix, config);
    const double epsilon =
        reader.optional_number(prefix + "attention.layer_norm_rms_epsilon", 1e-5);
    if (!(epsilon > 0.0 && epsilon < 1.0)) reader.fail("layer_norm_rms_epsilon is out of range");
    config.rms_epsilon = static_cast<float>(epsilon);
    return config;
}

// q, k and v: three tensors, or Phi-3's one fused tensor whose rows are q's, then k's, then v's.
void read_projections(const ModelReader& reader, const ModelConfig& config,
                      const std::string& prefix, LayerWeights& layer) {
    const int64_t dim = config.embedding_length;
    if (reader.has_tensor(prefix + "attn_qkv.weight")) {
        const WeightMatrix fused = reader.matrix(prefix + "attn_qkv.weight",
                                                 config.query_dim() + 2 * config.kv_dim(), dim);
        layer.query = fused.slice(0, config.query_dim());
        layer.key = fused.slice(config.query_dim(), config.kv_dim());
        layer.value = fused.slice(config.query_dim() + config.kv_dim(), config.kv_dim());
    } else {
        if (config.architecture == Architecture::Phi3 &&
            !reader.has_tensor(prefix + "attn_q.weight")) {
            reader.fail("the model has no tensor '" + prefix +
                        "attn_qkv.weight' (nor separate q, k and v)");
        }
        layer.query = reader.matrix(prefix + "attn_q.weight", config.query_dim(), dim);
        layer.key = reader.matrix(prefix + "attn_k.weight", config.kv_dim(), dim);
        layer.value = reader.matrix(prefix + "attn_v.weight", config.kv_dim(), dim);
    }
    layer.query_bias = reader.optional_vector(prefix + "attn_q.bias", config.query_dim());
    layer.key_bias = reader.optional_vector(prefix + "attn_k.bias", config.kv_dim());
    layer.value_bias = reader.optional_vector(prefix + "attn_v.bias", config.kv_dim());
    if (config.architecture == Architecture::Qwen2 &&
        (layer.query_bias.empty() || layer.key_bias.empty() || layer.value_bias.empty())) {
        reader.fail("qwen2 " + prefix.substr(0, prefix.size() - 1) + " lacks its q/k/v biases");
    }
    if (config.architecture == Architecture::GptOss) {
        // Required: reading them names the first one missing.
        layer.query_bias = reader.vector(prefix + "attn_q.bias", config.query_dim());
        layer.key_bias = reader.vector(prefix + "attn_k.bias", config.kv_dim());
        layer.value_bias = reader.vector(prefix + "attn_v.bias", config.kv_dim());
    }
    if (config.query_key_norm) {
        layer.query_norm = reader.vector(prefix + "attn_q_norm.weight", config.head_dim);
        layer.key_norm = reader.vector(prefix + "attn_k_norm.weight", config.head_dim);
    }
}

// The router and the stacked experts: 3-D tensors whose e-th slice is expert e.
void read_experts(const ModelReader& reader, const ModelConfig& config, const std::string& prefix,
                  LayerWeights& layer) {
    const int64_t dim = config.embedding_length;
    const int64_t experts = config.expert_count;
    const int64_t ffn = config.feed_forward_length;
    layer.router = reader.matrix(prefix + "ffn_gate_inp.weight", experts, dim);
    layer.expert_gate = reader.stacked_matrices(prefix + "ffn_gate_exps.weight", experts, ffn, dim);
    layer.expert_up = reader.stacked_matrices(prefix + "ffn_up_exps.weight", experts, ffn, dim);
    layer.expert_down = reader.stacked_matrices(prefix + "ffn_down_exps.weight", experts, dim, ffn);
    if (config.architecture != Architecture::GptOss) return;
    layer.router_bias = reader.vector(prefix + "ffn_gate_inp.bias", experts);
    layer.expert_gate_bias = reader.stacked_vectors(prefix + "ffn_gate_exps.bias", experts, ffn);
    layer.expert_up_bias = reader.stacked_vectors(prefix + "ffn_up_exps.bias", experts, ffn);
    layer.expert_down_bias = reader.stacked_vectors(prefix + "ffn_down_exps.bias", experts, dim);
}

// Gate and up: two tensors, or Phi-3's one ffn_up whose first half of rows is the gate; or the
// experts of a mixture.
void read_feed_forward(const ModelReader& reader, const ModelConfig& config,
                       const std::string& prefix, LayerWeights& layer) {
    const int64_t dim = config.embedding_length;
    const int64_t ffn = config.feed_forward_length;
    if (config.mixture_of_experts()) {
        read_experts(reader, config, prefix, layer);
        return;
    }
    if (config.architecture == Architecture::Phi3) {
        const WeightMatrix fused = reader.matrix(prefix + "ffn_up.weight", 2 * ffn, dim);
        layer.gate = fused.slice(0, ffn);
        layer.up = fused.slice(ffn, ffn);
    } else {
        layer.gate = reader.matrix(prefix + "ffn_gate.weight", ffn, dim);
        layer.up = reader.matrix(prefix + "ffn_up.weight", ffn, dim);
    }
    layer.down = reader.matrix(prefix + "ffn_down.weight", dim, ffn);
}

LayerWeights read_layer(const ModelReader& reader, const ModelConfig& config, int index) {
    const std::string prefix = "blk." + std::to_string(index) + ".";
    const int64_t dim = config.embedding_length;
    LayerWeights layer;
    layer.attention_norm = reader.vector(prefix + "attn_norm.weight", dim);
    read_projections(reader, config, prefix, layer);
    layer.attention_output = reader.matrix(prefix + "attn_output.weight", dim, config.query_dim());
    if (config.architecture == Architecture::GptOss) {
        layer.attention_output_bias = reader.vector(prefix + "attn_output.bias", dim);
        layer.attention_sinks = reader.vector(prefix + "attn_sinks.weight", config.head_count);
        // Despite its name, the norm before the FFN: gpt-oss has no norm after attention.
        layer.ffn_norm = reader.vector(prefix + "post_attention_norm.weight", dim);
    } else {
        layer.ffn_norm = reader.vector(prefix + "ffn_norm.weight", dim);
    }
    read_feed_forward(reader, config, prefix, layer);
    if (config.post_norms) {
        layer.post_attention_norm = reader.vector(prefix + "post_attention_norm.weight", dim);
        layer.post_ffn_norm = reader.vector(prefix + "post_ffw_norm.weight", dim);
    }
    return layer;
}

// Frequency divisors, if the file has them; each must be positive.
std::vector<float> read_rope_factors(const ModelReader& reader, const std::string& name,
                                     int pairs) {
    auto factors = reader.optional_vector(name, pairs);
    if (!reader.file().has_tensor_data()) return factors;  // a header alone: no values to check
    for (const float factor : factors) {
        if (!(factor > 0.0f)) reader.fail("tensor '" + name + "' holds a non-positive factor");
    }
    return factors;
}

}  // namespace

FeedForwardWeights expert_weights(const LayerWeights& layer, int experts, int expert) {
    // A bias vector's slice for the expert, or nothing where the layer has none.
    const auto slice = [&](const std::vector<float>& biases) -> std::span<const float> {
        if (biases.empty()) return {};
        const size_t length = biases.size() / static_cast<size_t>(experts);
        return std::span(biases).subspan(static_cast<size_t>(expert) * length, length);
    };
    return {expert_matrix(layer.expert_gate, experts, expert),
            expert_matrix(layer.expert_up, experts, expert),
            expert_matrix(layer.expert_down, experts, expert),
            slice(layer.expert_gate_bias),
            slice(layer.expert_up_bias),
            slice(layer.expert_down_bias)};
}

std::vector<int> layer_windows(const ModelConfig& config) {
    std::vector<int> windows;
    for (const LayerConfig& layer : config.layers) windows.push_back(layer.window);
    return windows;
}

void check_token_ids(const ModelConfig& config, std::span<const int32_t> tokens) {
    if (tokens.empty()) throw std::invalid_argument("forward pass over no tokens");
    for (const int32_t token : tokens) {
        if (token < 0 || token >= config.vocab_size) {
            throw std::out_of_range("token id " + std::to_string(token) +
                                    " is outside the vocabulary of " +
                                    std::to_string(config.vocab_size));
        }
    }
}

size_t ModelWeights::owned_bytes() const {
    size_t floats = output_norm.size() + rope_factors.size();
    floats += rope_factors_short.size() + rope_factors_long.size();
    for (const auto& layer : layers) {
        floats += layer.attention_norm.size() + layer.ffn_norm.size() + layer.query_bias.size() +
                  layer.key_bias.size() + layer.value_bias.size() + layer.query_norm.size() +
                  layer.key_norm.size() + layer.post_attention_norm.size() +
                  layer.post_ffn_norm.size() + layer.attention_output_bias.size() +
                  layer.attention_sinks.size() + layer.router_bias.size() +
                  layer.expert_gate_bias.size() + layer.expert_up_bias.size() +
                  layer.expert_down_bias.size();
    }
    return floats * sizeof(float);
}

std::unique_ptr<Model> Model::load(const std::filesystem::path& path, const MapOptions& options) {
    return std::make_unique<Model>(GgufFile::open(path, options));
}

Model::Model(std::unique_ptr<GgufFile> file) : m_file(std::move(file)) {
    const ModelReader reader(*m_file);
    m_config = read_config(reader);
    const int64_t dim = m_config.embedding_length;

    const auto& embedding = reader.tensor("token_embd.weight");
    if (embedding.shape.size() != 2 || embedding.shape[1] > static_cast<uint64_t>(1 << 22)) {
        reader.fail("tensor 'token_embd.weight' has shape " + shape_text(embedding.shape) +
                    ", expected [" + std::to_string(dim) + ", vocabulary size]");
    }
    m_config.vocab_size = static_cast<int>(embedding.shape[1]);
    m_weights.token_embedding = reader.matrix_of(embedding, m_config.vocab_size, dim);
    const int declared_vocab = reader.optional_int(m_config.architecture_name + ".vocab_size",
                                                   m_config.vocab_size, 1, 1 << 22);
    if (declared_vocab != m_config.vocab_size) {
        reader.fail("vocab_size says " + std::to_string(declared_vocab) +
                    " but token_embd.weight has " + std::to_string(m_config.vocab_size) + " rows");
    }

    for (int i = 0; i < m_config.layer_count; ++i) {
        m_weights.layers.push_back(read_layer(reader, m_config, i));
    }
    m_weights.output_norm = reader.vector("output_norm.weight", dim);
    // gpt-oss's LM head is never the embedding: matrix() names the missing tensor.
    if (m_file->find_tensor("output.weight") != nullptr ||
        m_config.architecture == Architecture::GptOss) {
        m_weights.output = reader.matrix("output.weight", m_config.vocab_size, dim);
    } else {
        m_config.tied_embeddings = true;
        m_weights.output = m_weights.token_embedding;
    }
    const int pairs = m_config.rope.dimensions / 2;
    m_weights.rope_factors = read_rope_factors(reader, "rope_freqs.weight", pairs);
    m_weights.rope_factors_short = read_rope_factors(reader, "rope_factors_short.weight", pairs);
    m_weights.rope_factors_long = read_rope_factors(reader, "rope_factors_long.weight", pairs);
}

}  // namespace hearth
