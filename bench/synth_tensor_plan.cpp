#include "bench/synth_tensor_plan.h"

#include <fmt/format.h>

namespace hearth::bench {

std::vector<PlannedTensor> tensor_plan(const SynthShape& shape) {
    const uint64_t dim = shape.embedding, ffn = shape.ffn, vocab = shape.vocab;
    const uint64_t query = shape.query_width(), kv = shape.kv_width(), head = shape.head_dim;
    std::vector<PlannedTensor> plan;
    const auto matrix = [&](std::string name, uint64_t columns, uint64_t rows, int layer) {
        plan.push_back({std::move(name), columns, rows, layer, false});
    };
    const auto norm = [&](std::string name, uint64_t length, int layer) {
        plan.push_back({std::move(name), length, 1, layer, true});
    };
    matrix("token_embd.weight", dim, vocab, -1);
    norm("output_norm.weight", dim, -1);
    if (!shape.tied_output) matrix("output.weight", dim, vocab, -1);
    for (int i = 0; i < shape.layers; ++i) {
        const std::string p = fmt::format("blk.{}.", i);
        norm(p + "attn_norm.weight", dim, i);
        matrix(p + "attn_q.weight", dim, query, i);
        matrix(p + "attn_k.weight", dim, kv, i);
        matrix(p + "attn_v.weight", dim, kv, i);
        if (shape.query_key_norm) {
            norm(p + "attn_q_norm.weight", head, i);
            norm(p + "attn_k_norm.weight", head, i);
        }
        matrix(p + "attn_output.weight", query, dim, i);
        if (shape.post_norms) norm(p + "post_attention_norm.weight", dim, i);
        norm(p + "ffn_norm.weight", dim, i);
        matrix(p + "ffn_gate.weight", dim, ffn, i);
        matrix(p + "ffn_up.weight", dim, ffn, i);
        matrix(p + "ffn_down.weight", ffn, dim, i);
        if (shape.post_norms) norm(p + "post_ffw_norm.weight", dim, i);
    }
    return plan;
}

}  // namespace hearth::bench
