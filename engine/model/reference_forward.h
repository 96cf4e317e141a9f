// The plain float32 forward pass: the oracle every optimised path is checked against.
// Written to be read top to bottom; speed belongs to the backends.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "engine/compute/kv_cache.h"
#include "engine/model/logit_rows.h"
#include "engine/model/model.h"
#include "engine/model/rope.h"

namespace hearth {

class ReferenceForward final {
public:
    explicit ReferenceForward(const Model& model);

    // Runs `tokens` at the positions following what `cache` holds and appends their keys and
    // values. Returns the logits, row after row (vocab_size floats per row).
    std::vector<float> forward(std::span<const int32_t> tokens, KvCache& cache,
                               LogitRows rows = LogitRows::Last);

    KvCache make_cache(int capacity) const;

private:
    void run_layer(int layer, int position, KvCache& cache, const Rope* rope);
    void attend(int layer, int position, const KvCache& cache);
    // The FFN of m_normed into `out` (a dense layer's, or one expert's), and the router's
    // choice of experts into m_projected.
    void feed_forward(const FeedForwardWeights& w, float* out);
    void mixture_of_experts(const LayerWeights& w);

    const Model& m_model;
    const ModelConfig& m_config;
    // Activations for the current position.
    std::vector<float> m_x;          // (dim) residual stream
    std::vector<float> m_normed;     // (dim)
    std::vector<float> m_query;      // (query_dim)
    std::vector<float> m_attended;   // (query_dim)
    std::vector<float> m_scores;     // (context)
    std::vector<float> m_gate;       // (ffn)
    std::vector<float> m_up;         // (ffn)
    std::vector<float> m_projected;  // (dim)
    std::vector<float> m_expert;     // (dim) one expert's output
    std::vector<float> m_router;     // (expert_count) router logits
    std::vector<float> m_row;        // scratch for one dequantised weight row
};

}  // namespace hearth
