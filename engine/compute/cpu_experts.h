// A mixture-of-experts FFN on the CPU: the router for every row of a step, then each chosen
// expert once for all the rows that chose it, so its weights are read once per step and the
// unchosen experts' not at all (a decode step reads only its chosen experts' slices of the
// mapped file).
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

#include "engine/compute/cpu_matmul.h"
#include "engine/model/expert_routing.h"
#include "engine/model/model.h"

namespace hearth {

class CpuExperts {
public:
    // One expert's gated FFN over `rows` rows of `in` into `out`: the backend's own FFN code,
    // on the path the whole step takes.
    using FeedForward = std::function<void(const FeedForwardWeights& expert, const float* in,
                                           int rows, float* out)>;

    explicit CpuExperts(const ModelConfig& config) : m_config(config) {}

    // `count` rows of `in` (layer `w`'s FFN input) into `out`; the router's product runs on the
    // path `path_tokens` tokens take.
    void run(const LayerWeights& w, const float* in, int count, int path_tokens, float* out,
             CpuMatmul& matmul, const FeedForward& feed_forward);

    // The scratch it holds now, and the most it holds for steps of up to `largest_step` tokens.
    size_t allocated_bytes() const;
    static size_t working_bytes(const ModelConfig& config, int largest_step);

private:
    // Counting sort of the step's choices by expert, each expert's rows in token order.
    void group_by_expert(size_t routes);

    const ModelConfig& m_config;
    // Router logits, each row's choices, and one expert's rows in and out; the choices grouped
    // by expert (m_expert_routes, expert e's from m_expert_start[e]).
    std::vector<float> m_router, m_expert_in, m_expert_out;
    std::vector<ExpertChoice> m_routes;
    std::vector<int> m_expert_routes, m_expert_start, m_expert_fill;
};

}  // namespace hearth
