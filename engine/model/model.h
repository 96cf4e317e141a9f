// A loaded model: its configuration (the blueprint) and its weights (views into the mapped file).
// Config and weights are separate plain structs; run state (activations, KV cache) lives elsewhere.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "engine/format/gguf_file.h"
#include "engine/format/tensor_types.h"
#include "engine/model/architecture.h"

namespace hearth {

// How RoPE pairs the dimensions of a head.
enum class RopeStyle {
    AdjacentPairs,  // (2i, 2i+1): ggml's "normal" mode, used by llama files
    Neox,           // (i, i + d/2): used by qwen2
};

// YaRN context extension (gpt-oss): the pairs that turn slower than the original context lasts
// are interpolated by the factor, the fast ones kept, a linear ramp between; llama.cpp's rule.
struct YarnConfig {
    double factor = 0.0;  // s; 0: no YaRN
    int original_context = 0;
    double beta_fast = 32.0;  // rotations over the original context where the ramp ends
    double beta_slow = 1.0;   // and where it starts
};

// One kind of rotation; a model has one for its global layers and one for its sliding-window
// layers (the same unless the file says otherwise, as Gemma 3's does).
struct RopeConfig {
    int dimensions = 0;  // leading dimensions of each head that RoPE rotates
    double base = 10000.0;
    double scale = 1.0;      // linear RoPE scaling: positions are multiplied by this
    float magnitude = 1.0f;  // cos and sin are multiplied by this (LongRoPE's attn_factor, YaRN's)
    RopeStyle style = RopeStyle::AdjacentPairs;
    YarnConfig yarn;
};

enum class Activation {
    Silu,           // SwiGLU: down(silu(gate) * up)
    GeluTanh,       // GeGLU with the tanh approximation (Gemma)
    ClampedSwiglu,  // gpt-oss: x = min(gate, 7), down(x * sigmoid(1.702x) * (clamp(up, ±7) + 1))
};

// What differs from layer to layer.
struct LayerConfig {
    int window = 0;  // a sliding-window layer sees positions (i - window, i]; 0: all up to i
    enum class Rope { Global, Local, None } rope = Rope::Global;
};

struct ModelConfig {
    Architecture architecture = Architecture::Llama;
    std::string architecture_name;
    std::string name;
    int embedding_length = 0;  // dim
    int layer_count = 0;
    int head_count = 0;
    int kv_head_count = 0;
    int head_dim = 0;
    int feed_forward_length = 0;  // the FFN's width; with experts, each expert's
    int vocab_size = 0;
    int context_length = 0;  // the length the model was trained for
    RopeConfig rope;         // global layers
    RopeConfig local_rope;   // sliding-window layers
    // LongRoPE (Phi-3.5, Phi-4-mini): a context longer than this uses the long factors.
    int rope_original_context = 0;
    std::vector<LayerConfig> layers;
    float rms_epsilon = 1e-5f;
    Activation activation = Activation::Silu;
    float embedding_scale = 1.0f;    // token embeddings are multiplied by this (Gemma: sqrt(dim))
    float attention_scale = 0.0f;    // multiplies q.k before the softmax
    float attention_softcap = 0.0f;  // scores become c*tanh(s/c); 0: none (Gemma 2)
    float final_softcap = 0.0f;      // the same on the logits
    bool query_key_norm = false;     // per-head RMSNorm of q and k before RoPE (Qwen3, Gemma 3)
    bool post_norms = false;         // RMSNorm of each block's output before the residual (Gemma)
    bool tied_embeddings = false;    // the LM head reuses the token embedding matrix
    // Mixture of experts (Qwen3-MoE, gpt-oss): every layer's FFN is `expert_count` gated experts
    // of feed_forward_length, of which a router picks `experts_used` per token. 0: dense.
    int expert_count = 0;
    int experts_used = 0;

    bool mixture_of_experts() const { return expert_count > 0; }

    int kv_dim() const { return kv_head_count * head_dim; }
    int query_dim() const { return head_count * head_dim; }
};

// A row-major matrix stored in the file: `rows` rows of `columns` elements, each row a whole
// number of blocks of `type`.
struct WeightMatrix {
    TensorType type = TensorType::F32;
    const std::byte* data = nullptr;
    int64_t rows = 0;
    int64_t columns = 0;
    size_t row_bytes = 0;
    // Rows repacked into the sixteen-row strips of kernels/strips.h as the model was loaded
    // (engine/model/strip_layout.h): `data` holds strips, not rows, and row() must
    // not be used; rows_at() unpacks.
    bool strips = false;

    // Null for a model read from a file's header alone, which has no bytes: offsetting a null
    // pointer is undefined behaviour, and a made-up address would look like data.
    const std::byte* row(int64_t index) const {
        return data == nullptr ? nullptr : data + static_cast<size_t>(index) * row_bytes;
    }
    // Rows [first, first + count) in the file's layout: where they lie, or, for strips, unpacked
    // into `scratch`. For readers that want rows (a GPU upload, the reference pass).
    const std::byte* rows_at(int64_t first, int64_t count, std::vector<std::byte>& scratch) const;
    // Rows [first, first + count) as a matrix of their own: the parts of a fused tensor
    // (Phi-3's attn_qkv, its gate-and-up ffn_up) are views, not copies. Strips are cut only
    // between strips: other bounds throw LoadError.
    WeightMatrix slice(int64_t first, int64_t count) const;
};

struct LayerWeights {
    std::vector<float> attention_norm;         // (dim)
    WeightMatrix query;                        // (head_count * head_dim, dim)
    WeightMatrix key;                          // (kv_head_count * head_dim, dim)
    WeightMatrix value;                        // (kv_head_count * head_dim, dim)
    std::vector<float> query_bias;             // (head_count * head_dim) or empty
    std::vector<float> key_bias;               // (kv_head_count * head_dim) or empty
    std::vector<float> value_bias;             // (kv_head_count * head_dim) or empty
    std::vector<float> query_norm;             // (head_dim) with query_key_norm, else empty
    std::vector<float> key_norm;               // (head_dim) with query_key_norm, else empty
    WeightMatrix attention_output;             // (dim, head_count * head_dim)
    std::vector<float> attention_output_bias;  // (dim) or empty
    // One logit per query head added to the softmax's denominator (gpt-oss), or empty.
    std::vector<float> attention_sinks;      // (head_count)
    std::vector<float> post_attention_norm;  // (dim) with post_norms, else empty
    std::vector<float> ffn_norm;             // (dim); gpt-oss's file calls it post_attention_norm
    WeightMatrix gate;                       // (ffn, dim); empty with experts
    WeightMatrix up;                         // (ffn, dim); empty with experts
    WeightMatrix down;                       // (dim, ffn); empty with experts
    // Mixture of experts, else empty: the router, and each expert's matrices stacked in one
    // 3-D tensor, expert e's rows after expert e - 1's (expert_matrix takes one out).
    WeightMatrix router;       // (expert_count, dim)
    WeightMatrix expert_gate;  // (expert_count * expert_ffn, dim)
    WeightMatrix expert_up;    // (expert_count * expert_ffn, dim)
    WeightMatrix expert_down;  // (expert_count * dim, expert_ffn)
    // gpt-oss's biases, else empty: the router's, and each expert's after the one before.
    std::vector<float> router_bias;       // (expert_count)
    std::vector<float> expert_gate_bias;  // (expert_count * expert_ffn)
    std::vector<float> expert_up_bias;    // (expert_count * expert_ffn)
    std::vector<float> expert_down_bias;  // (expert_count * dim)
    std::vector<float> post_ffn_norm;     // (dim) with post_norms, else empty

    // The seven weight matrices, for code that treats them alike (uploads, pipelines).
    std::array<const WeightMatrix*, 7> matrices() const {
        return {&query, &key, &value, &attention_output, &gate, &up, &down};
    }
};

// Expert `expert`'s matrix out of `stacked` (expert_gate, expert_up or expert_down of a layer
// with `experts` experts): a view of its rows in the mapped file.
inline WeightMatrix expert_matrix(const WeightMatrix& stacked, int experts, int expert) {
    const int64_t rows = stacked.rows / experts;
    return stacked.slice(expert * rows, rows);
}

// One gated FFN's matrices and biases (empty where it has none): a dense layer's, or one
// expert's views into its layer's stacked tensors.
struct FeedForwardWeights {
    WeightMatrix gate;                          // (ffn, dim)
    WeightMatrix up;                            // (ffn, dim)
    WeightMatrix down;                          // (dim, ffn)
    std::span<const float> gate_bias, up_bias;  // (ffn)
    std::span<const float> down_bias;           // (dim)
};

// Expert `expert` of a layer with `experts` experts.
FeedForwardWeights expert_weights(const LayerWeights& layer, int experts, int expert);

struct ModelWeights {
    WeightMatrix token_embedding;  // (vocab, dim)
    std::vector<LayerWeights> layers;
    std::vector<float> output_norm;  // (dim)
    WeightMatrix output;             // (vocab, dim); the token embedding when tied
    // Per-pair frequency divisors (rope.dimensions / 2 each), or empty: Llama 3.1's rope_freqs,
    // and Phi-3's LongRoPE factors for contexts up to and beyond rope_original_context.
    std::vector<float> rope_factors;
    std::vector<float> rope_factors_short;
    std::vector<float> rope_factors_long;

    // Memory held beside the mapped file: the float vectors above.
    size_t owned_bytes() const;
};

// Each layer's sliding window (0: none), as caches are built from.
std::vector<int> layer_windows(const ModelConfig& config);

// Throws std::invalid_argument for no tokens and std::out_of_range naming the first id outside
// the vocabulary: every forward pass checks its input with this before touching any state.
void check_token_ids(const ModelConfig& config, std::span<const int32_t> tokens);

class Model final {
public:
    // Opens, validates and maps a GGUF model. Throws LoadError naming what is wrong, and
    // LoadCancelled when `options.progress` asks to stop.
    static std::unique_ptr<Model> load(const std::filesystem::path& path,
                                       const MapOptions& options = {});
    explicit Model(std::unique_ptr<GgufFile> file);

    const ModelConfig& config() const { return m_config; }
    const ModelWeights& weights() const { return m_weights; }
    const GgufFile& file() const { return *m_file; }

private:
    std::unique_ptr<GgufFile> m_file;
    ModelConfig m_config;
    ModelWeights m_weights;
};

}  // namespace hearth
