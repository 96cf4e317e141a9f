#include "engine/model/reference_forward.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

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
    for (int64_t r = 0; r < w.rows; ++r) {
        dequantize(w.type, w.row(r), row.data(), row.size());
        double sum = 0.0;
        for (int64_t c = 0; c < w.columns; ++c) sum += static_cast<double>(row[c]) * x[c];
        out[r] = static_cast<float>(sum);
    }
}

void add_bias(float* x, const std::vector<float>& bias) {
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

}  // namespace

ReferenceForward::ReferenceForward(const Model& model)
    : m_model(model),
      m_config(model.config()),
      m_rope(model),
      m_x(m_config.embedding_length),
      m_normed(m_config.embedding_length),
      m_query(m_config.query_dim()),
      m_attended(m_config.query_dim()),
      m_gate(m_config.feed_forward_length),
      m_up(m_config.feed_forward_length),
      m_projected(m_config.embedding_length) {}

KvCache ReferenceForward::make_cache(int capacity) const {
    return KvCache(m_config.layer_count, capacity, m_config.kv_dim());
}

std::vector<float> ReferenceForward::forward(std::span<const int32_t> tokens, KvCache& cache,
                                             LogitRows rows) {
    check_token_ids(m_config, tokens);
    cache.reserve_positions(static_cast<int>(tokens.size()));
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
        for (int layer = 0; layer < m_config.layer_count; ++layer)
            run_layer(layer, position, cache);
        cache.commit(1);

        if (rows == LogitRows::All || (rows == LogitRows::Last && t + 1 == tokens.size())) {
            rmsnorm(m_x.data(), weights.output_norm, m_config.rms_epsilon, m_normed.data());
            logits.resize(logits.size() + vocab);
            matvec(weights.output, m_normed.data(), logits.data() + logits.size() - vocab, m_row);
        }
    }
    return logits;
}

void ReferenceForward::run_layer(int layer, int position, KvCache& cache) {
    const auto& w = m_model.weights().layers[layer];
    const int dim = m_config.embedding_length;

    // Attention block: normalise, project to q/k/v, rotate, cache, attend, project back.
    rmsnorm(m_x.data(), w.attention_norm, m_config.rms_epsilon, m_normed.data());
    float* key = cache.key(layer, position);
    float* value = cache.value(layer, position);
    matvec(w.query, m_normed.data(), m_query.data(), m_row);
    matvec(w.key, m_normed.data(), key, m_row);
    matvec(w.value, m_normed.data(), value, m_row);
    add_bias(m_query.data(), w.query_bias);
    add_bias(key, w.key_bias);
    add_bias(value, w.value_bias);
    for (int h = 0; h < m_config.head_count; ++h)
        m_rope.apply(&m_query[h * m_config.head_dim], position);
    for (int h = 0; h < m_config.kv_head_count; ++h)
        m_rope.apply(&key[h * m_config.head_dim], position);
    attend(layer, position, cache);
    matvec(w.attention_output, m_attended.data(), m_projected.data(), m_row);
    for (int i = 0; i < dim; ++i) m_x[i] += m_projected[i];

    // Feed-forward block: SwiGLU.
    rmsnorm(m_x.data(), w.ffn_norm, m_config.rms_epsilon, m_normed.data());
    matvec(w.gate, m_normed.data(), m_gate.data(), m_row);
    matvec(w.up, m_normed.data(), m_up.data(), m_row);
    for (int i = 0; i < m_config.feed_forward_length; ++i) m_gate[i] = silu(m_gate[i]) * m_up[i];
    matvec(w.down, m_gate.data(), m_projected.data(), m_row);
    for (int i = 0; i < dim; ++i) m_x[i] += m_projected[i];
}

// Grouped-query attention of every query head over positions 0..position.
void ReferenceForward::attend(int layer, int position, const KvCache& cache) {
    const int head_dim = m_config.head_dim;
    const int group = m_config.head_count / m_config.kv_head_count;
    const float scale = 1.0f / std::sqrt(static_cast<float>(head_dim));
    m_scores.resize(static_cast<size_t>(position) + 1);
    for (int h = 0; h < m_config.head_count; ++h) {
        const float* query = &m_query[h * head_dim];
        const int kv_offset = (h / group) * head_dim;
        for (int t = 0; t <= position; ++t) {
            const float* key = cache.key(layer, t) + kv_offset;
            double dot = 0.0;
            for (int i = 0; i < head_dim; ++i) dot += static_cast<double>(query[i]) * key[i];
            m_scores[t] = static_cast<float>(dot) * scale;
        }
        softmax(m_scores.data(), position + 1);
        float* out = &m_attended[h * head_dim];
        std::fill(out, out + head_dim, 0.0f);
        for (int t = 0; t <= position; ++t) {
            const float* value = cache.value(layer, t) + kv_offset;
            for (int i = 0; i < head_dim; ++i) out[i] += m_scores[t] * value[i];
        }
    }
}

}  // namespace hearth
