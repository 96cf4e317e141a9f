#include "bench/synth_tensor_plan.h"

#include <fmt/format.h>

namespace hearth::bench {
namespace {

// Appends the tensors of one shape to a plan.
class Planner {
public:
    explicit Planner(std::vector<PlannedTensor>& plan) : m_plan(plan) {}

    void matrix(std::string name, uint64_t columns, uint64_t rows, int layer) {
        m_plan.push_back({std::move(name), columns, rows, 0, layer, TensorRole::Matrix});
    }
    void experts(std::string name, uint64_t columns, uint64_t rows, uint64_t count, int layer) {
        m_plan.push_back({std::move(name), columns, rows, count, layer, TensorRole::Matrix});
    }
    void norm(std::string name, uint64_t length, int layer) {
        m_plan.push_back({std::move(name), length, 1, 0, layer, TensorRole::Norm});
    }
    // A bias, sink or router: `rows` > 1 makes it two-dimensional.
    void vector(std::string name, uint64_t length, uint64_t rows, int layer) {
        m_plan.push_back({std::move(name), length, rows, 0, layer, TensorRole::Vector});
    }

private:
    std::vector<PlannedTensor>& m_plan;
};

void plan_attention(const SynthShape& shape, const std::string& p, int i, Planner& plan) {
    const uint64_t dim = shape.embedding, query = shape.query_width(), kv = shape.kv_width();
    const auto projection = [&](const char* name, uint64_t columns, uint64_t rows) {
        plan.matrix(p + name + ".weight", columns, rows, i);
        if (shape.biases) plan.vector(p + name + ".bias", rows, 1, i);
    };
    projection("attn_q", dim, query);
    projection("attn_k", dim, kv);
    projection("attn_v", dim, kv);
    if (shape.query_key_norm) {
        plan.norm(p + "attn_q_norm.weight", shape.head_dim, i);
        plan.norm(p + "attn_k_norm.weight", shape.head_dim, i);
    }
    projection("attn_output", query, dim);
    if (shape.attention_sinks) plan.vector(p + "attn_sinks.weight", shape.heads, 1, i);
}

// The router and the stacked experts (llama.cpp's ffn_*_exps: expert e's matrix after e - 1's).
void plan_experts(const SynthShape& shape, const std::string& p, int i, Planner& plan) {
    const uint64_t dim = shape.embedding, ffn = shape.expert_ffn, count = shape.experts;
    plan.vector(p + "ffn_gate_inp.weight", dim, count, i);
    if (shape.biases) plan.vector(p + "ffn_gate_inp.bias", count, 1, i);
    const auto stack = [&](const char* name, uint64_t columns, uint64_t rows) {
        plan.experts(p + name + ".weight", columns, rows, count, i);
        if (shape.biases) plan.vector(p + name + ".bias", rows, count, i);
    };
    stack("ffn_gate_exps", dim, ffn);
    stack("ffn_up_exps", dim, ffn);
    stack("ffn_down_exps", ffn, dim);
}

void plan_layer(const SynthShape& shape, int i, Planner& plan) {
    const uint64_t dim = shape.embedding, ffn = shape.ffn;
    const std::string p = fmt::format("blk.{}.", i);
    plan.norm(p + "attn_norm.weight", dim, i);
    plan_attention(shape, p, i, plan);
    // gpt-oss names the norm before its FFN post_attention_norm; Gemma's post_attention_norm
    // is a second norm, of the attention's output.
    if (shape.post_norms) plan.norm(p + "post_attention_norm.weight", dim, i);
    plan.norm(
        p + (shape.ffn_norm_is_post_attention ? "post_attention_norm.weight" : "ffn_norm.weight"),
        dim, i);
    if (shape.experts > 0) {
        plan_experts(shape, p, i, plan);
    } else {
        plan.matrix(p + "ffn_gate.weight", dim, ffn, i);
        plan.matrix(p + "ffn_up.weight", dim, ffn, i);
        plan.matrix(p + "ffn_down.weight", ffn, dim, i);
    }
    if (shape.post_norms) plan.norm(p + "post_ffw_norm.weight", dim, i);
}

}  // namespace

std::vector<uint64_t> PlannedTensor::shape() const {
    std::vector<uint64_t> dims{columns};
    if (role == TensorRole::Matrix || rows > 1) dims.push_back(rows);
    if (experts > 0) dims.push_back(experts);
    return dims;
}

std::vector<PlannedTensor> tensor_plan(const SynthShape& shape) {
    const uint64_t dim = shape.embedding, vocab = shape.vocab;
    std::vector<PlannedTensor> tensors;
    Planner plan(tensors);
    plan.matrix("token_embd.weight", dim, vocab, -1);
    plan.norm("output_norm.weight", dim, -1);
    if (!shape.tied_output) plan.matrix("output.weight", dim, vocab, -1);
    for (int i = 0; i < shape.layers; ++i) plan_layer(shape, i, plan);
    return tensors;
}

}  // namespace hearth::bench
