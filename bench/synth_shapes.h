// The shapes hearth-synth-model writes: the models benchmarks compare on, with the
// hyperparameters their files state so that Hearth and llama.cpp read them alike.
#pragma once

#include <string>
#include <string_view>

#include "engine/format/gguf_writer.h"

namespace hearth::bench {

// Where a shape's tokenizer comes from. llama.cpp loads no model without one; Hearth's own
// benchmarks need none, so the Llama shapes (compared through make_synth.py's files) carry none.
enum class VocabularySource {
    None,
    Copied,        // copied from a vocabulary-only GGUF: Qwen2's BPE (Qwen3 uses it) unless named
    SyntheticSpm,  // a generated SentencePiece vocabulary in Gemma's layout
};

struct SynthShape {
    std::string architecture;  // general.architecture, and the prefix of its keys
    int layers = 0, embedding = 0, heads = 0, kv_heads = 0;
    int head_dim = 0;  // Qwen3 and Gemma state it: it is not embedding / heads
    int ffn = 0, vocab = 0, context = 0;
    double rope_base = 10000.0;
    float rms_epsilon = 1e-5f;
    bool tied_output = false;     // no output.weight: the token embedding is the output matrix
    bool query_key_norm = false;  // attn_q_norm and attn_k_norm over each head (Qwen3, Gemma 3)
    bool post_norms = false;      // post_attention_norm and post_ffw_norm (Gemma)
    // Gemma 3's local layers (five to each global one), gpt-oss's even layers.
    int sliding_window = 0;
    double local_rope_base = 0.0;  // rope.freq_base_swa; 0: not stated (the global base)
    VocabularySource vocabulary = VocabularySource::None;
    // Mixture of experts: each layer's FFN is `experts` SwiGLU experts of `expert_ffn`, of
    // which a router picks `experts_used` per token (`ffn` is then the dense width they
    // replace, stated but unused). 0: dense.
    int experts = 0, experts_used = 0, expert_ffn = 0;
    bool biases = false;                      // q/k/v/o, router and expert biases (gpt-oss)
    bool attention_sinks = false;             // a learned logit per head in the softmax (gpt-oss)
    bool ffn_norm_is_post_attention = false;  // gpt-oss names the FFN's norm so
    // YaRN RoPE scaling (gpt-oss): positions stretched by the factor beyond the original
    // context. 0: none.
    double yarn_factor = 0.0;
    int yarn_original_context = 0;

    int query_width() const { return heads * head_dim; }
    int kv_width() const { return kv_heads * head_dim; }
    bool mixture_of_experts() const { return experts > 0; }
};

// nullptr for a name that is not one of the shapes.
const SynthShape* find_shape(std::string_view name);
// "a|b|c", for the usage line.
std::string shape_names();
// The architecture's hyperparameter keys; the tokenizer's are written apart.
void write_shape_metadata(const SynthShape& shape, GgufWriter& writer);

}  // namespace hearth::bench
