#include "engine/compute/cpu_experts.h"

#include <algorithm>

namespace hearth {

size_t CpuExperts::allocated_bytes() const {
    const size_t floats = m_router.size() + m_expert_in.size() + m_expert_out.size();
    const size_t ints = m_expert_routes.size() + m_expert_start.size() + m_expert_fill.size();
    return floats * sizeof(float) + m_routes.size() * sizeof(ExpertChoice) + ints * sizeof(int);
}

size_t CpuExperts::working_bytes(const ModelConfig& config, int largest_step) {
    if (!config.mixture_of_experts()) return 0;
    const size_t steps = static_cast<size_t>(largest_step);
    const size_t experts = static_cast<size_t>(config.expert_count);
    const size_t routes = static_cast<size_t>(config.experts_used) * steps;
    // Router logits, one expert's rows in and out.
    const size_t floats = (experts + 2 * static_cast<size_t>(config.embedding_length)) * steps;
    return floats * sizeof(float) + routes * (sizeof(ExpertChoice) + sizeof(int)) +
           (2 * experts + 1) * sizeof(int);
}

void CpuExperts::group_by_expert(size_t routes) {
    const int experts = m_config.expert_count;
    m_expert_start.assign(static_cast<size_t>(experts) + 1, 0);
    m_expert_fill.assign(static_cast<size_t>(experts), 0);
    for (size_t r = 0; r < routes; ++r) ++m_expert_start[m_routes[r].expert + 1];
    for (int e = 0; e < experts; ++e) m_expert_start[e + 1] += m_expert_start[e];
    for (size_t r = 0; r < routes; ++r) {
        const int e = m_routes[r].expert;
        m_expert_routes[m_expert_start[e] + m_expert_fill[e]++] = static_cast<int>(r);
    }
}

void CpuExperts::run(const LayerWeights& w, const float* in, int count, int path_tokens, float* out,
                     CpuMatmul& matmul, const FeedForward& feed_forward) {
    const size_t dim = static_cast<size_t>(m_config.embedding_length);
    const int experts = m_config.expert_count;
    const size_t used = static_cast<size_t>(m_config.experts_used);
    const size_t rows = static_cast<size_t>(count);
    const auto grow = [](auto& buffer, size_t size) {
        if (buffer.size() < size) buffer.resize(size);
    };
    grow(m_router, rows * static_cast<size_t>(experts));
    grow(m_routes, rows * used);
    grow(m_expert_routes, rows * used);
    grow(m_expert_in, rows * dim);
    grow(m_expert_out, rows * dim);

    matmul.run(w.router, in, count, path_tokens, m_router.data());
    CpuMatmul::add_bias(m_router.data(), w.router_bias, count);
    for (size_t t = 0; t < rows; ++t) {
        route_experts(std::span<const float>(&m_router[t * experts], static_cast<size_t>(experts)),
                      std::span(&m_routes[t * used], used));
    }
    group_by_expert(rows * used);
    // Each token's experts are added in expert order, whichever rows share the step.
    std::fill(out, out + rows * dim, 0.0f);
    for (int e = 0; e < experts; ++e) {
        const int first = m_expert_start[e], chosen = m_expert_start[e + 1] - first;
        if (chosen == 0) continue;
        for (int j = 0; j < chosen; ++j) {
            const size_t token = static_cast<size_t>(m_expert_routes[first + j]) / used;
            std::copy_n(in + token * dim, dim, &m_expert_in[j * dim]);
        }
        feed_forward(expert_weights(w, experts, e), m_expert_in.data(), chosen,
                     m_expert_out.data());
        for (int j = 0; j < chosen; ++j) {
            const size_t route = static_cast<size_t>(m_expert_routes[first + j]);
            const float weight = m_routes[route].weight;
            float* token_out = out + (route / used) * dim;
            const float* expert_out = &m_expert_out[j * dim];
            for (size_t i = 0; i < dim; ++i) token_out[i] += weight * expert_out[i];
        }
    }
}

}  // namespace hearth
