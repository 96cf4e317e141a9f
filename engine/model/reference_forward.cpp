#include "engine/model/reference_forward.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <stdexcept>

#include "engine/model/expert_routing.h"

namespace hearth {
namespace {

void rmsnorm(const float* x, const std::vector<float>& weight, float epsilon, float* out) {
    const size_t n = weight.size();
    double sum_squares = 0.0;
    for (size_t i = 0; i < n; ++i) sum_squares += static_cast<double>(x[i]) * x[i];
    const float scale = static_cast<float>(1.0 / std::sqrt(sum_squares / n + epsilon));
    for (size_t i = 0; i < n; ++i) out[i] = x[i] * scale * weight[i];
}

// out = W x, dequantising one row at a time into `row`.
void matvec(const WeightMatrix& w, const float* x, float* out, std::vector<float>& row) {
    row.resize(static_cast<size_t>(w.columns));
    std::vector<std::byte> unpacked;
    for (int64_t r = 0; r < w.rows; ++r) {
        dequantize(w.type, w.rows_at(r, 1, unpacked), row.data(), row.size());
        double sum = 0.0;
        for (int64_t c = 0; c < w.columns; ++c) sum += static_cast<double>(row[c]) * x[c];
        out[r] = static_cast<float>(sum);
    }
}

void add_bias(float* x, std::span<const float> bias) {
    for (size_t i = 0; i < bias.size(); ++i) x[i] += bias[i];
}

void softmax(float* x, int n) {
    const float maximum = *std::max_element(x, x + n);
    double sum = 0.0;
    for (int i = 0; i < n; ++i) {
        x[i] = std::exp(x[i] - maximum);
        sum += x[i];
    }
    for (int i = 0; i < n; ++i) x[i] = static_cast<float>(x[i] / sum);
}

float silu(float x) {
    return x / (1.0f + std::exp(-x));
}

float gelu(float x) {
    const float inner = std::sqrt(2.0f / std::numbers::pi_v<float>) * (x + 0.044715f * x * x * x);
    return 0.5f * x * (1.0f + std::tanh(inner));
}

// gpt-oss's gate: the gate capped at 7 above, the up value at ±7, and 1 added to the up value.
float clamped_swiglu(float gate, float up) {
    constexpr float kLimit = 7.0f, kAlpha = 1.702f;
    const float x = std::min(gate, kLimit);
    return x / (1.0f + std::exp(-kAlpha * x)) * (std::clamp(up, -kLimit, kLimit) + 1.0f);
}

float gated(Activation activation, float gate, float up) {
    switch (activation) {
        case Activation::GeluTanh:
            return gelu(gate) * up;
        case Activation::ClampedSwiglu:
            return clamped_swiglu(gate, up);
        case Activation::Silu:
            break;
    }
    return silu(gate) * up;
}

// c * tanh(x / c): Gemma 2 bounds its attention scores and logits this way; 0 means no cap.
float softcap(float x, float cap) {
    return cap > 0.0f ? cap * std::tanh(x / cap) : x;
}

}  // namespace

ReferenceForward::ReferenceForward(const Model& model)
    : m_model(model),
      m_config(model.config()),
      m_x(m_config.embedding_length),
      m_normed(m_config.embedding_length),
      m_query(m_config.query_dim()),
      m_attended(m_config.query_dim()),
      m_gate(m_config.feed_forward_length),
      m_up(m_config.feed_forward_length),
      m_projected(m_config.embedding_length),
      m_expert(m_config.embedding_length),
      m_router(m_config.expert_count) {}

// Token by token: a sliding-window layer's ring needs only its window.
KvCache ReferenceForward::make_cache(int capacity) const {
    return KvCache(layer_windows(m_config), 1, capacity, m_config.kv_dim());
}

std::vector<float> ReferenceForward::forward(std::span<const int32_t> tokens, KvCache& cache,
                                             LogitRows rows) {
    check_token_ids(m_config, tokens);
    cache.reserve_positions(static_cast<int>(tokens.size()));
    const LayerRopes ropes(m_model, cache.capacity());
    const auto& weights = m_model.weights();
    const size_t vocab = static_cast<size_t>(m_config.vocab_size);
    std::vector<float> logits;
    logits.reserve(rows == LogitRows::All    ? tokens.size() * vocab
                   : rows == LogitRows::Last ? vocab
                                             : 0);

    for (size_t t = 0; t < tokens.size(); ++t) {
        const int32_t token = tokens[t];
        const int position = cache.size();
        dequantize(weights.token_embedding.type, weights.token_embedding.row(token), m_x.data(),
                   m_x.size());
        for (float& value : m_x) value *= m_config.embedding_scale;
        for (int layer = 0; layer < m_config.layer_count; ++layer)
            run_layer(layer, position, cache, ropes.layer(layer));
        cache.commit(1);

        if (rows == LogitRows::All || (rows == LogitRows::Last && t + 1 == tokens.size())) {
            rmsnorm(m_x.data(), weights.output_norm, m_config.rms_epsilon, m_normed.data());
            logits.resize(logits.size() + vocab);
            float* row = logits.data() + logits.size() - vocab;
            matvec(weights.output, m_normed.data(), row, m_row);
            for (size_t i = 0; i < vocab; ++i) row[i] = softcap(row[i], m_config.final_softcap);
        }
    }
    return logits;
}

void ReferenceForward::run_layer(int layer, int position, KvCache& cache, const Rope* rope) {
    const auto& w = m_model.weights().layers[layer];
    const int dim = m_config.embedding_length;
    const int head_dim = m_config.head_dim;

    // Attention block: normalise, project to q/k/v, normalise each head, rotate, cache, attend,
    // project back (and normalise the result, for Gemma).
    rmsnorm(m_x.data(), w.attention_norm, m_config.rms_epsilon, m_normed.data());
    float* key = cache.key(layer, position);
    float* value = cache.value(layer, position);
    matvec(w.query, m_normed.data(), m_query.data(), m_row);
    matvec(w.key, m_normed.data(), key, m_row);
    matvec(w.value, m_normed.data(), value, m_row);
    add_bias(m_query.data(), w.query_bias);
    add_bias(key, w.key_bias);
    add_bias(value, w.value_bias);
    for (int h = 0; h < m_config.head_count; ++h) {
        float* head = &m_query[h * head_dim];
        if (m_config.query_key_norm) rmsnorm(head, w.query_norm, m_config.rms_epsilon, head);
        if (rope != nullptr) rope->apply(head, position);
    }
    for (int h = 0; h < m_config.kv_head_count; ++h) {
        float* head = &key[h * head_dim];
        if (m_config.query_key_norm) rmsnorm(head, w.key_norm, m_config.rms_epsilon, head);
        if (rope != nullptr) rope->apply(head, position);
    }
    attend(layer, position, cache);
    matvec(w.attention_output, m_attended.data(), m_projected.data(), m_row);
    add_bias(m_projected.data(), w.attention_output_bias);
    if (m_config.post_norms) {
        rmsnorm(m_projected.data(), w.post_attention_norm, m_config.rms_epsilon,
                m_projected.data());
    }
    for (int i = 0; i < dim; ++i) m_x[i] += m_projected[i];

    rmsnorm(m_x.data(), w.ffn_norm, m_config.rms_epsilon, m_normed.data());
    if (m_config.mixture_of_experts()) {
        mixture_of_experts(w);
    } else {
        feed_forward({w.gate, w.up, w.down}, m_projected.data());
    }
    if (m_config.post_norms) {
        rmsnorm(m_projected.data(), w.post_ffn_norm, m_config.rms_epsilon, m_projected.data());
    }
    for (int i = 0; i < dim; ++i) m_x[i] += m_projected[i];
}

// SwiGLU, GeGLU for Gemma, or gpt-oss's clamped SwiGLU, with the biases it has.
void ReferenceForward::feed_forward(const FeedForwardWeights& w, float* out) {
    matvec(w.gate, m_normed.data(), m_gate.data(), m_row);
    matvec(w.up, m_normed.data(), m_up.data(), m_row);
    add_bias(m_gate.data(), w.gate_bias);
    add_bias(m_up.data(), w.up_bias);
    for (int i = 0; i < m_config.feed_forward_length; ++i)
        m_gate[i] = gated(m_config.activation, m_gate[i], m_up[i]);
    matvec(w.down, m_gate.data(), out, m_row);
    add_bias(out, w.down_bias);
}

// Router logits (plus gpt-oss's bias), the top k weighted by the softmax over their logits
// (route_experts), then the weighted sum of those experts' outputs.
void ReferenceForward::mixture_of_experts(const LayerWeights& w) {
    matvec(w.router, m_normed.data(), m_router.data(), m_row);
    add_bias(m_router.data(), w.router_bias);
    std::vector<ExpertChoice> chosen(static_cast<size_t>(m_config.experts_used));
    route_experts(m_router, chosen);
    std::fill(m_projected.begin(), m_projected.end(), 0.0f);
    for (const ExpertChoice& choice : chosen) {
        feed_forward(expert_weights(w, m_config.expert_count, choice.expert), m_expert.data());
        for (size_t i = 0; i < m_expert.size(); ++i) m_projected[i] += choice.weight * m_expert[i];
    }
}

// Grouped-query attention of every query head over the positions this layer sees: all up to
// `position`, or on a sliding-window layer only the last `window` of them. A layer with sinks
// (gpt-oss) has one more score per head in the softmax, which weighs no value.
void ReferenceForward::attend(int layer, int position, const KvCache& cache) {
    const int head_dim = m_config.head_dim;
    const int group = m_config.head_count / m_config.kv_head_count;
    const int window = m_config.layers[static_cast<size_t>(layer)].window;
    const int first = window > 0 ? std::max(0, position - window + 1) : 0;
    const int seen = position - first + 1;
    const auto& sinks = m_model.weights().layers[static_cast<size_t>(layer)].attention_sinks;
    m_scores.resize(static_cast<size_t>(seen) + 1);
    for (int h = 0; h < m_config.head_count; ++h) {
        const float* query = &m_query[h * head_dim];
        const int kv_offset = (h / group) * head_dim;
        for (int t = first; t <= position; ++t) {
            const float* key = cache.key(layer, t) + kv_offset;
            double dot = 0.0;
            for (int i = 0; i < head_dim; ++i) dot += static_cast<double>(query[i]) * key[i];
            m_scores[t - first] = softcap(static_cast<float>(dot) * m_config.attention_scale,
                                          m_config.attention_softcap);
        }
        if (!sinks.empty()) m_scores[seen] = sinks[static_cast<size_t>(h)];
        softmax(m_scores.data(), sinks.empty() ? seen : seen + 1);
        float* out = &m_attended[h * head_dim];
        std::fill(out, out + head_dim, 0.0f);
        for (int t = first; t <= position; ++t) {
            const float* value = cache.value(layer, t) + kv_offset;
            for (int i = 0; i < head_dim; ++i) out[i] += m_scores[t - first] * value[i];
        }
    }
}

}  // namespace hearth
