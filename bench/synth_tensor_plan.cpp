#include "bench/synth_tensor_plan.h"

#include <fmt/format.h>

namespace hearth::bench {

std::vector<PlannedTensor> tensor_plan(const SynthShape& shape) {
    const uint64_t dim = shape.embedding, ffn = shape.ffn, vocab = shape.vocab;
    const uint64_t query = shape.query_width(), kv = shape.kv_width();
    std::vector<PlannedTensor> plan;
    const auto matrix = [&](std::string name, uint64_t columns, uint64_t rows, int layer) {
        plan.push_back({std::move(name), columns, rows, layer, false});
    };
    const auto norm = [&](std::string name, uint64_t length, int layer) {
        plan.push_back({std::move(name), length, 1, layer, true});
    };
    matrix("token_embd.weight", dim, vocab, -1);
    norm("output_norm.weight", dim, -1);
    matrix("output.weight", dim, vocab, -1);
    for (int i = 0; i < shape.layers; ++i) {
        const std::string p = fmt::format("blk.{}.", i);
        norm(p + "attn_norm.weight", dim, i);
        matrix(p + "attn_q.weight", dim, query, i);
        matrix(p + "attn_k.weight", dim, kv, i);
        matrix(p + "attn_v.weight", dim, kv, i);
        matrix(p + "attn_output.weight", query, dim, i);
        norm(p + "ffn_norm.weight", dim, i);
        matrix(p + "ffn_gate.weight", dim, ffn, i);
        matrix(p + "ffn_up.weight", dim, ffn, i);
        matrix(p + "ffn_down.weight", ffn, dim, i);
    }
    return plan;
}

}  // namespace hearth::bench
