#include "engine/compute/cpu_experts.h"

#include <algorithm>

namespace hearth {

namespace {

template <typename Buffer>
void grow(Buffer& buffer, size_t size) {
    if (buffer.size() < size) buffer.resize(size);
}

}  // namespace

CpuExperts::CpuExperts(const ModelConfig& config) : m_config(config) {
    // Reserved once, so the weights' addresses the jobs point at never move.
    m_chosen.reserve(static_cast<size_t>(config.expert_count));
    m_jobs.reserve(2 * static_cast<size_t>(config.expert_count));
}

size_t CpuExperts::allocated_bytes() const {
    size_t floats = 0;
    for (const auto* buffer : {&m_router, &m_expert_in, &m_expert_out, &m_gate, &m_up}) {
        floats += buffer->size();
    }
    const size_t ints = m_expert_routes.size() + m_expert_start.size() + m_expert_fill.size();
    return floats * sizeof(float) + m_routes.size() * sizeof(ExpertChoice) + ints * sizeof(int);
}

bool CpuExperts::together(const LayerWeights& w, int path_tokens, const TakesDots& takes_dots) {
    return takes_dots(w.expert_gate, path_tokens) && takes_dots(w.expert_up, path_tokens) &&
           takes_dots(w.expert_down, path_tokens);
}

size_t CpuExperts::working_bytes(const ModelConfig& config, std::span<const LayerWeights> layers,
                                 std::span<const int> steps, const TakesDots& takes_dots) {
    if (!config.mixture_of_experts()) return 0;
    const size_t experts = static_cast<size_t>(config.expert_count);
    const size_t used = static_cast<size_t>(config.experts_used);
    const size_t dim = static_cast<size_t>(config.embedding_length);
    const size_t ffn = static_cast<size_t>(config.feed_forward_length);
    // Each buffer at its widest over the steps: together, rows for every route; one expert at a
    // time, rows for the step's tokens (all of which may choose one expert).
    size_t largest = 1, expert_rows = 0, hidden_rows = 0;
    for (const int step : steps) {
        const size_t rows = static_cast<size_t>(step);
        largest = std::max(largest, rows);
        const bool grouped = std::any_of(layers.begin(), layers.end(), [&](const auto& layer) {
            return together(layer, step, takes_dots);
        });
        const bool each = std::any_of(layers.begin(), layers.end(), [&](const auto& layer) {
            return !together(layer, step, takes_dots);
        });
        if (each) expert_rows = std::max(expert_rows, rows);
        if (grouped) {
            expert_rows = std::max(expert_rows, rows * used);
            hidden_rows = std::max(hidden_rows, rows * used);
        }
    }
    const size_t floats = experts * largest + 2 * dim * expert_rows + 2 * ffn * hidden_rows;
    return floats * sizeof(float) + used * largest * (sizeof(ExpertChoice) + sizeof(int)) +
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
                     CpuMatmul& matmul, const FeedForward& feed_forward,
                     const GateActivation& activate) {
    const size_t dim = static_cast<size_t>(m_config.embedding_length);
    const int experts = m_config.expert_count;
    const size_t used = static_cast<size_t>(m_config.experts_used);
    const size_t rows = static_cast<size_t>(count);
    grow(m_router, rows * static_cast<size_t>(experts));
    grow(m_routes, rows * used);
    grow(m_expert_routes, rows * used);

    matmul.run(w.router, in, count, path_tokens, m_router.data());
    CpuMatmul::add_bias(m_router.data(), w.router_bias, count);
    for (size_t t = 0; t < rows; ++t) {
        route_experts(std::span<const float>(&m_router[t * experts], static_cast<size_t>(experts)),
                      std::span(&m_routes[t * used], used));
    }
    group_by_expert(rows * used);
    // Each token's experts are added in expert order, whichever rows share the step.
    std::fill(out, out + rows * dim, 0.0f);
    const auto takes_dots = [&](const WeightMatrix& matrix, int tokens) {
        return matmul.takes_dots(matrix, tokens);
    };
    if (together(w, path_tokens, takes_dots)) {
        run_together(w, in, rows * used, out, matmul, activate);
    } else {
        run_each(w, in, rows, out, feed_forward);
    }
}

void CpuExperts::run_each(const LayerWeights& w, const float* in, size_t rows, float* out,
                          const FeedForward& feed_forward) {
    const size_t dim = static_cast<size_t>(m_config.embedding_length);
    grow(m_expert_in, rows * dim);
    grow(m_expert_out, rows * dim);
    for (int e = 0; e < m_config.expert_count; ++e) {
        const int first = m_expert_start[e], chosen = m_expert_start[e + 1] - first;
        if (chosen == 0) continue;
        gather(first, chosen, in);
        feed_forward(expert_weights(w, m_config.expert_count, e), m_expert_in.data(), chosen,
                     m_expert_out.data());
        add_weighted(first, chosen, m_expert_out.data(), out);
    }
}

void CpuExperts::run_together(const LayerWeights& w, const float* in, size_t routes, float* out,
                              CpuMatmul& matmul, const GateActivation& activate) {
    const size_t dim = static_cast<size_t>(m_config.embedding_length);
    const size_t ffn = static_cast<size_t>(m_config.feed_forward_length);
    grow(m_expert_in, routes * dim);
    grow(m_expert_out, routes * dim);
    grow(m_gate, routes * ffn);
    grow(m_up, routes * ffn);
    gather(0, static_cast<int>(routes), in);
    m_chosen.clear();
    for (int e = 0; e < m_config.expert_count; ++e) {
        const int first = m_expert_start[e], rows = m_expert_start[e + 1] - first;
        if (rows > 0) {
            m_chosen.push_back(
                {expert_weights(w, m_config.expert_count, e), static_cast<size_t>(first), rows});
        }
    }
    m_jobs.clear();
    for (const Chosen& c : m_chosen) {
        const float* rows_in = &m_expert_in[c.first * dim];
        m_jobs.push_back({&c.weights.gate, rows_in, c.rows, &m_gate[c.first * ffn]});
        m_jobs.push_back({&c.weights.up, rows_in, c.rows, &m_up[c.first * ffn]});
    }
    matmul.run_jobs(m_jobs);
    for (const Chosen& c : m_chosen) {
        CpuMatmul::add_bias(&m_gate[c.first * ffn], c.weights.gate_bias, c.rows);
        CpuMatmul::add_bias(&m_up[c.first * ffn], c.weights.up_bias, c.rows);
    }
    activate(m_gate.data(), m_up.data(), static_cast<int>(routes), ffn);
    m_jobs.clear();
    for (const Chosen& c : m_chosen) {
        m_jobs.push_back(
            {&c.weights.down, &m_gate[c.first * ffn], c.rows, &m_expert_out[c.first * dim]});
    }
    matmul.run_jobs(m_jobs);
    for (const Chosen& c : m_chosen) {
        CpuMatmul::add_bias(&m_expert_out[c.first * dim], c.weights.down_bias, c.rows);
        add_weighted(static_cast<int>(c.first), c.rows, &m_expert_out[c.first * dim], out);
    }
}

void CpuExperts::gather(int first, int count, const float* in) {
    const size_t dim = static_cast<size_t>(m_config.embedding_length);
    const size_t used = static_cast<size_t>(m_config.experts_used);
    for (int j = 0; j < count; ++j) {
        const size_t token = static_cast<size_t>(m_expert_routes[first + j]) / used;
        std::copy_n(in + token * dim, dim, &m_expert_in[static_cast<size_t>(j) * dim]);
    }
}

void CpuExperts::add_weighted(int first, int chosen, const float* expert_out, float* out) const {
    const size_t dim = static_cast<size_t>(m_config.embedding_length);
    const size_t used = static_cast<size_t>(m_config.experts_used);
    for (int j = 0; j < chosen; ++j) {
        const size_t route = static_cast<size_t>(m_expert_routes[first + j]);
        const float weight = m_routes[route].weight;
        float* token_out = out + (route / used) * dim;
        const float* row = expert_out + static_cast<size_t>(j) * dim;
        for (size_t i = 0; i < dim; ++i) token_out[i] += weight * row[i];
    }
}

}  // namespace hearth
