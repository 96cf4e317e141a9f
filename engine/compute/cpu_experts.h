// A mixture-of-experts FFN on the CPU: the router for every row of a step, then each chosen
// expert once for all the rows that chose it, so its weights are read once per step and the
// unchosen experts' not at all (a decode step reads only its chosen experts' slices of the
// mapped file). Where the experts' products take the integer dots (decode, small steps), every
// chosen expert's gate and up run as one dispatch to the pool and every down as another: a
// decode step's eight small experts would otherwise pay for two dozen dispatches and their
// stragglers per layer. Either way each row gets the same numbers, added in expert order.
#pragma once

#include <cstddef>
#include <functional>
#include <span>
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
    // The backend's gate over `rows` hidden rows of `width`: gate[i] = act(gate[i]) * up[i].
    using GateActivation =
        std::function<void(float* gate, const float* up, int rows, size_t width)>;
    // Whether a step of `count` rows runs every chosen expert together (its products on dots).
    using TakesDots = std::function<bool(const WeightMatrix& w, int path_tokens)>;

    explicit CpuExperts(const ModelConfig& config);

    // `count` rows of `in` (layer `w`'s FFN input) into `out`; the router's product runs on the
    // path `path_tokens` tokens take.
    void run(const LayerWeights& w, const float* in, int count, int path_tokens, float* out,
             CpuMatmul& matmul, const FeedForward& feed_forward, const GateActivation& activate);

    // The scratch it holds now, and the most it holds for steps of each of `steps` tokens.
    size_t allocated_bytes() const;
    static size_t working_bytes(const ModelConfig& config, std::span<const LayerWeights> layers,
                                std::span<const int> steps, const TakesDots& takes_dots);
    // Whether steps of `path_tokens` run the chosen experts together.
    static bool together(const LayerWeights& w, int path_tokens, const TakesDots& takes_dots);

private:
    // Counting sort of the step's choices by expert, each expert's rows in token order.
    void group_by_expert(size_t routes);
    // Each chosen expert over its rows, one expert after another.
    void run_each(const LayerWeights& w, const float* in, size_t routes, float* out,
                  const FeedForward& feed_forward);
    // Every chosen expert's products in one dispatch per matrix kind.
    void run_together(const LayerWeights& w, const float* in, size_t routes, float* out,
                      CpuMatmul& matmul, const GateActivation& activate);
    // Rows 0.. of m_expert_in: the input rows of routes [first, first + count) in expert order.
    void gather(int first, int count, const float* in);
    // out[token] += weight * expert output, for each of an expert's `chosen` routes from `first`,
    // whose outputs are rows of `expert_out`.
    void add_weighted(int first, int chosen, const float* expert_out, float* out) const;

    const ModelConfig& m_config;
    // Router logits, each row's choices, and one expert's rows in and out; the choices grouped
    // by expert (m_expert_routes, expert e's from m_expert_start[e]).
    std::vector<float> m_router, m_expert_in, m_expert_out;
    std::vector<ExpertChoice> m_routes;
    std::vector<int> m_expert_routes, m_expert_start, m_expert_fill;
    // A chosen expert's weights and its rows (routes [first, first + rows) in expert order).
    struct Chosen {
        FeedForwardWeights weights;
        size_t first;
        int rows;
    };
    // run_together's hidden rows (every route's), the chosen experts and their jobs.
    std::vector<float> m_gate, m_up;
    std::vector<Chosen> m_chosen;
    std::vector<CpuMatmul::Job> m_jobs;
};

}  // namespace hearth
