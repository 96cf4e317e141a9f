#include "engine/compute/cpu_backend.h"

#include <cblas.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "engine/compute/cache_sequence.h"
#include "engine/compute/kv_cache.h"
#include "engine/generation/prefill_planner.h"
#include "kernels/attention.h"
#include "kernels/half.h"

namespace hearth {

namespace {

// Elements of a norm, rotation or gated activation that make one share of the pool's work: a decode
// step's few rows of these take microseconds, less than waking the pool and waiting for it, so they
// run on the calling thread (a row's numbers do not depend on which thread computes it).
constexpr size_t kLeastShareElements = 8192;
// The most positions of a segment whose cache rows a layer fetches before writing them: a
// decode step's one, a speculative step's few.
constexpr int kPrefetchedCacheRows = 16;

kernels::SwigluFunction gate_activation(Activation activation, kernels::Isa isa) {
    switch (activation) {
        case Activation::GeluTanh:
            return kernels::geglu(isa);
        case Activation::ClampedSwiglu:
            return kernels::clamped_swiglu(isa);
        case Activation::Silu:
            break;
    }
    return kernels::swiglu(isa);
}

MatmulThresholds thresholds(const CpuBackendOptions& options) {
    return {.panel = options.panel_threshold, .blas = options.blas_threshold};
}

}  // namespace

CpuBackend::CpuBackend(const Model& model, CpuBackendOptions options)
    : m_model(model),
      m_config(model.config()),
      m_options(std::move(options)),
      m_kv_cache(effective_kv_cache_type(m_config, m_options.kv_cache)),
      m_pool(m_options.threads),
      m_isa(m_options.isa.value_or(kernels::best_isa())),
      m_matmul(m_pool, m_isa, thresholds(m_options)),
      m_rms_norm(kernels::rms_norm(m_isa)),
      m_gate_activation(gate_activation(m_config.activation, m_isa)),
      m_attention({static_cast<size_t>(m_config.head_dim),
                   static_cast<size_t>(m_config.head_count),
                   static_cast<size_t>(m_config.kv_head_count),
                   {m_config.attention_scale, m_config.attention_softcap}},
                  m_isa),
      m_experts(m_config) {
    if (static_cast<size_t>(m_config.head_dim) > kernels::kMaxAttentionHeadDim) {
        throw std::invalid_argument("the CPU backend handles attention heads of up to " +
                                    std::to_string(kernels::kMaxAttentionHeadDim) +
                                    " dimensions; this model's have " +
                                    std::to_string(m_config.head_dim));
    }
    openblas_set_num_threads(m_pool.size());
}

std::string CpuBackend::name() const {
    std::string isa(kernels::isa_name(m_isa));
    const kernels::GemmTable* gemm = m_matmul.gemm();
    if (gemm != nullptr && isa != gemm->name) isa += std::string(" + ") + gemm->name;
    const std::string cache =
        m_kv_cache == KvCacheType::F16 ? "" : ", " + std::string(to_string(m_kv_cache)) + " cache";
    return "cpu (" + isa + ", " + std::to_string(m_pool.size()) + " threads" + cache + ")";
}

int CpuBackend::largest_step(const CpuBackendOptions& options) {
    int largest = 1;
    for (const int size : options.chunk_sizes) largest = std::max(largest, size);
    return largest;
}

size_t CpuBackend::kv_bytes(const ModelConfig& config, int capacity,
                            const CpuBackendOptions& options) {
    const KvCacheType type = effective_kv_cache_type(config, options.kv_cache);
    return kv_cache_bytes(layer_windows(config), largest_step(options), capacity,
                          2 * kv_row_bytes(type, config.kv_dim()));
}

size_t CpuBackend::working_bytes(const Model& model, const CpuBackendOptions& options) {
    const ModelConfig& config = model.config();
    const int largest = largest_step(options);
    const size_t dim = static_cast<size_t>(config.embedding_length);
    const size_t ffn = static_cast<size_t>(config.feed_forward_length);
    const size_t per_token = 3 * dim + 2 * static_cast<size_t>(config.query_dim()) +
                             2 * static_cast<size_t>(config.kv_dim()) +
                             static_cast<size_t>(config.head_dim);  // rotation angles
    const size_t floats = (per_token * static_cast<size_t>(largest) +
                           2 * ffn * static_cast<size_t>(std::min(largest, kFeedForwardSlice))) *
                          sizeof(float);
    CpuMatmul::Scratch products(options.isa.value_or(kernels::best_isa()), thresholds(options));
    const auto takes_dots = [&](const WeightMatrix& w, int count) {
        return products.takes_dots(w, count);
    };
    const auto& weights = model.weights();
    for (const int count : options.chunk_sizes) {
        for (const auto& layer : weights.layers) {
            products.add({&layer.query, &layer.key, &layer.value}, count);
            products.add({&layer.attention_output}, count);
            const int slice = std::min(count, kFeedForwardSlice);
            products.add({&layer.gate, &layer.up}, slice, count);
            products.add({&layer.down}, slice, count);
            // An expert's rows are at most the step's; as many as that is the widest case.
            if (!config.mixture_of_experts()) continue;
            products.add({&layer.router}, count);
            products.add({&layer.expert_gate, &layer.expert_up}, slice, count);
            products.add({&layer.expert_down}, slice, count);
        }
    }
    if (config.mixture_of_experts()) {
        // A step whose experts run together quantises every route's rows at once.
        for (const int count : options.chunk_sizes) {
            for (const auto& layer : weights.layers) {
                if (!CpuExperts::together(layer, count, takes_dots)) continue;
                const int routes = count * config.experts_used;
                products.add_jobs({&layer.expert_gate, &layer.expert_up}, routes);
                products.add_jobs({&layer.expert_down}, routes);
            }
        }
    }
    products.add({&weights.output}, 1);  // the LM head runs on the last row
    const size_t experts =
        config.mixture_of_experts()
            ? CpuExperts::working_bytes(config, weights.layers, options.chunk_sizes, takes_dots)
            : 0;
    return floats + experts + products.total() +
           static_cast<size_t>(config.vocab_size) * sizeof(float);  // one logits row
}

size_t CpuBackend::allocated_working_bytes() const {
    size_t floats = 0;
    for (const auto* buffer : {&m_x, &m_normed, &m_query, &m_key, &m_value, &m_attended, &m_angles,
                               &m_gate, &m_up, &m_projected, &m_head}) {
        floats += buffer->size();
    }
    return floats * sizeof(float) + m_experts.allocated_bytes() + m_matmul.allocated_bytes() +
           static_cast<size_t>(m_config.vocab_size) * sizeof(float);
}

namespace {

template <typename Element>
std::unique_ptr<Sequence> make_sequence(const Backend& owner, const Model& model, int step,
                                        int capacity) {
    const ModelConfig& config = model.config();
    return std::make_unique<CacheSequence<Element>>(
        owner, model,
        BasicKvCache<Element>(layer_windows(config), step, capacity, config.kv_dim()));
}

}  // namespace

std::unique_ptr<Sequence> CpuBackend::create_sequence(int capacity) {
    const int step = largest_step(m_options);
    if (m_kv_cache == KvCacheType::Q8_0) {
        return make_sequence<kernels::BlockQ8_0>(*this, m_model, step, capacity);
    }
    return make_sequence<uint16_t>(*this, m_model, step, capacity);
}

std::vector<float> CpuBackend::forward(std::span<const int32_t> tokens, Sequence& sequence,
                                       LogitRows rows) {
    const BatchRow row{tokens, &sequence, rows};
    return std::move(forward_batch(std::span(&row, 1)).front());
}

// A backend makes sequences of its one cache type, so the type tells which one it was given.
std::vector<std::vector<float>> CpuBackend::forward_batch(std::span<const BatchRow> rows) {
    if (m_kv_cache == KvCacheType::Q8_0) return forward_rows<kernels::BlockQ8_0>(rows);
    return forward_rows<uint16_t>(rows);
}

// Each row's tokens go in the steps the prefill planner gives them alone; step i of every row
// runs in one pass.
template <typename Element>
std::vector<std::vector<float>> CpuBackend::forward_rows(std::span<const BatchRow> rows) {
    std::vector<CacheSequence<Element>*> sequences;
    std::vector<std::vector<PrefillStep>> plans;
    size_t rounds = 0;
    // Every row is checked before any runs, so a refused batch changes nothing.
    check_distinct(rows);
    for (const auto& row : rows) {
        auto* sequence = &own_sequence<CacheSequence<Element>>(*row.sequence, *this);
        check_token_ids(m_config, row.tokens);
        sequence->cache().reserve_positions(static_cast<int>(row.tokens.size()));
        sequences.push_back(sequence);
        plans.push_back(
            plan_prefill(static_cast<int>(row.tokens.size()), 0, m_options.chunk_sizes));
        rounds = std::max(rounds, plans.back().size());
    }
    std::vector<std::vector<float>> logits(rows.size());
    std::vector<Segment<Element>> segments;
    for (size_t round = 0; round < rounds; ++round) {
        segments.clear();
        for (size_t i = 0; i < rows.size(); ++i) {
            if (round >= plans[i].size()) continue;
            const PrefillStep& step = plans[i][round];
            const bool last = round + 1 == plans[i].size();
            segments.push_back(
                {.tokens = rows[i].tokens.subspan(static_cast<size_t>(step.start),
                                                  static_cast<size_t>(step.tokens)),
                 .sequence = sequences[i],
                 .rows = last || rows[i].rows == LogitRows::All ? rows[i].rows : LogitRows::None,
                 .logits = &logits[i]});
        }
        forward_step(std::span(segments));
    }
    return logits;
}

bool CpuBackend::per_token_path(int tokens) const {
    return tokens < m_options.blas_threshold &&
           (m_matmul.gemm() == nullptr || tokens < m_options.panel_threshold);
}

std::vector<CpuBackend::Pass> CpuBackend::plan_passes(std::span<const int> sizes,
                                                      std::vector<size_t>& order) const {
    order.resize(sizes.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_partition(order.begin(), order.end(),
                          [&](size_t i) { return per_token_path(sizes[i]); });
    std::vector<Pass> passes;
    int first = 0;
    for (size_t k = 0; k < order.size(); ++k) {
        const int size = sizes[order[k]];
        if (per_token_path(size) && !passes.empty() && per_token_path(passes.back().path_tokens)) {
            Pass& shared = passes.back();
            shared.count += size;
            shared.path_tokens = std::max(shared.path_tokens, size);
            shared.end = k + 1;
        } else {
            passes.push_back(
                {.first = first, .count = size, .path_tokens = size, .begin = k, .end = k + 1});
        }
        first += size;
    }
    return passes;
}

template <typename Element>
void CpuBackend::forward_step(std::span<Segment<Element>> segments) {
    std::vector<int> sizes;
    for (const auto& segment : segments) {
        const int size = static_cast<int>(segment.tokens.size());
        if (size > segment.sequence->cache().largest_step()) {
            throw std::logic_error("a prefill step longer than the KV cache's rings allow");
        }
        sizes.push_back(size);
    }
    std::vector<size_t> order;
    const auto passes = plan_passes(sizes, order);
    std::vector<Segment<Element>> ordered;
    int count = 0;
    for (const size_t i : order) {
        ordered.push_back(segments[i]);
        ordered.back().first = count;
        count += sizes[i];
    }
    const size_t dim = static_cast<size_t>(m_config.embedding_length);
    const auto& weights = m_model.weights();
    const auto grow = [](std::vector<float>& buffer, size_t width, int rows) {
        if (buffer.size() < width * rows) buffer.resize(width * rows);
    };
    grow(m_x, dim, count);
    grow(m_normed, dim, count);
    grow(m_query, static_cast<size_t>(m_config.query_dim()), count);
    grow(m_key, static_cast<size_t>(m_config.kv_dim()), count);
    grow(m_value, static_cast<size_t>(m_config.kv_dim()), count);
    grow(m_attended, static_cast<size_t>(m_config.query_dim()), count);
    grow(m_angles, static_cast<size_t>(m_config.head_dim), count);
    const int slice = std::min(count, kFeedForwardSlice);
    grow(m_gate, static_cast<size_t>(m_config.feed_forward_length), slice);
    grow(m_up, static_cast<size_t>(m_config.feed_forward_length), slice);
    grow(m_projected, dim, count);

    for (const auto& segment : ordered) {
        for (size_t t = 0; t < segment.tokens.size(); ++t) {
            float* x = &m_x[(segment.first + t) * dim];
            dequantize(weights.token_embedding.type, weights.token_embedding.row(segment.tokens[t]),
                       x, dim);
            if (m_config.embedding_scale != 1.0f) {
                for (size_t i = 0; i < dim; ++i) x[i] *= m_config.embedding_scale;
            }
        }
    }
    for (int layer = 0; layer < m_config.layer_count; ++layer) {
        run_layer(layer, std::span<const Segment<Element>>(ordered), passes, count);
    }
    for (const auto& segment : ordered) {
        segment.sequence->cache().commit(static_cast<int>(segment.tokens.size()));
    }
    run_head(std::span<const Segment<Element>>(ordered));
}

// The LM head runs on each segment's last row only, unless it asked for every row.
template <typename Element>
void CpuBackend::run_head(std::span<const Segment<Element>> segments) {
    const size_t dim = static_cast<size_t>(m_config.embedding_length);
    const size_t vocab = static_cast<size_t>(m_config.vocab_size);
    std::vector<const Segment<Element>*> heads;
    std::vector<int> sizes;
    for (const auto& segment : segments) {
        if (segment.rows == LogitRows::None) continue;
        heads.push_back(&segment);
        sizes.push_back(segment.rows == LogitRows::All ? static_cast<int>(segment.tokens.size())
                                                       : 1);
    }
    std::vector<size_t> order;
    const auto passes = plan_passes(sizes, order);
    int row = 0;  // gathered in pass order into m_normed, normalised on the way
    for (const size_t i : order) {
        const int from = heads[i]->first + static_cast<int>(heads[i]->tokens.size()) - sizes[i];
        normalize(&m_x[from * dim], m_model.weights().output_norm, sizes[i], &m_normed[row * dim]);
        row += sizes[i];
    }
    for (const Pass& pass : passes) {
        // A pass of one segment writes straight into its logits; a shared one goes through
        // m_head and is split after.
        const bool single = pass.end - pass.begin == 1;
        std::vector<float>& logits = single ? *heads[order[pass.begin]]->logits : m_head;
        const size_t start = single ? logits.size() : 0;
        if (logits.size() < start + pass.count * vocab) logits.resize(start + pass.count * vocab);
        float* out = logits.data() + start;
        m_matmul.run(m_model.weights().output, &m_normed[pass.first * dim], pass.count,
                     pass.path_tokens, out);
        if (m_config.final_softcap > 0.0f) {
            for (size_t i = 0; i < pass.count * vocab; ++i) {
                out[i] = kernels::softcap_score(out[i], m_config.final_softcap);
            }
        }
        if (single) continue;
        const float* from = out;
        for (size_t k = pass.begin; k < pass.end; ++k) {
            const size_t values = static_cast<size_t>(sizes[order[k]]) * vocab;
            std::vector<float>& own = *heads[order[k]]->logits;
            own.insert(own.end(), from, from + values);
            from += values;
        }
    }
}

void CpuBackend::normalize(const float* in, const std::vector<float>& weight, int count,
                           float* out) {
    const size_t dim = weight.size();
    const size_t grain = std::max<size_t>(1, kLeastShareElements / dim);
    m_pool.parallel_for(static_cast<size_t>(count), grain, [&](size_t begin, size_t end) {
        for (size_t t = begin; t < end; ++t) {
            m_rms_norm(in + t * dim, weight.data(), dim, m_config.rms_epsilon, out + t * dim);
        }
    });
}

template <typename Element>
void CpuBackend::run_layer(int layer, std::span<const Segment<Element>> segments,
                           std::span<const Pass> passes, int count) {
    const auto& w = m_model.weights().layers[layer];
    const size_t dim = static_cast<size_t>(m_config.embedding_length);
    const size_t kv_dim = static_cast<size_t>(m_config.kv_dim());
    const size_t query_dim = static_cast<size_t>(m_config.query_dim());
    const int head_dim = m_config.head_dim;
    const float epsilon = m_config.rms_epsilon;

    // A decoding segment's cache rows, whose writes come after the products below, fetched
    // while those run: 4% of an 8-stream SmolLM step waited on them. Not a prompt chunk's:
    // hundreds of rows would only push each other out.
    for (const auto& segment : segments) {
        const auto tokens = static_cast<int>(segment.tokens.size());
        if (tokens > kPrefetchedCacheRows) continue;
        const auto& cache = segment.sequence->cache();
        cache.prefetch_for_write(layer, cache.size(), tokens);
    }
    normalize(m_x.data(), w.attention_norm, count, m_normed.data());
    for (const Pass& p : passes) {
        m_matmul.run_group({{&w.query, &m_query[p.first * query_dim]},
                            {&w.key, &m_key[p.first * kv_dim]},
                            {&w.value, &m_value[p.first * kv_dim]}},
                           &m_normed[p.first * dim], p.count, p.path_tokens);
    }
    // Per token: biases, per-head norms, rotation, the K/V write into its own sequence's cache;
    // every segment's tokens in one dispatch, as a batched decode step has one token in each.
    const size_t rope_grain = std::max<size_t>(1, kLeastShareElements / (query_dim + 2 * kv_dim));
    m_pool.parallel_for(static_cast<size_t>(count), rope_grain, [&](size_t begin, size_t end) {
        size_t s = 0;
        for (size_t row = begin; row < end; ++row) {
            // Segments cover the scratch rows in order.
            while (row >= static_cast<size_t>(segments[s].first) + segments[s].tokens.size()) ++s;
            const auto& segment = segments[s];
            const Rope* rope = segment.sequence->ropes().layer(layer);
            auto& cache = segment.sequence->cache();
            const size_t t = row - static_cast<size_t>(segment.first);
            const int position = cache.size() + static_cast<int>(t);
            float* query = &m_query[row * query_dim];
            float* key = &m_key[row * kv_dim];
            float* value = &m_value[row * kv_dim];
            for (size_t i = 0; i < w.query_bias.size(); ++i) query[i] += w.query_bias[i];
            for (size_t i = 0; i < w.key_bias.size(); ++i) key[i] += w.key_bias[i];
            for (size_t i = 0; i < w.value_bias.size(); ++i) value[i] += w.value_bias[i];
            if (m_config.query_key_norm) {
                for (int h = 0; h < m_config.head_count; ++h) {
                    m_rms_norm(query + h * head_dim, w.query_norm.data(), w.query_norm.size(),
                               epsilon, query + h * head_dim);
                }
                for (int h = 0; h < m_config.kv_head_count; ++h) {
                    m_rms_norm(key + h * head_dim, w.key_norm.data(), w.key_norm.size(), epsilon,
                               key + h * head_dim);
                }
            }
            if (rope != nullptr) {
                // A token's angles serve all of its heads, and every later layer with the same
                // rotation: the token keeps its position through the step. Computing them (in
                // double precision) at every layer cost an 8-stream SmolLM step about 1 µs a
                // layer.
                float* cosines = &m_angles[row * static_cast<size_t>(head_dim)];
                float* sines = cosines + head_dim / 2;
                if (layer == 0 || segment.sequence->ropes().layer(layer - 1) != rope) {
                    rope->angles(position, cosines, sines);
                }
                for (int h = 0; h < m_config.head_count; ++h) {
                    rope->rotate(query + h * head_dim, cosines, sines);
                }
                for (int h = 0; h < m_config.kv_head_count; ++h) {
                    rope->rotate(key + h * head_dim, cosines, sines);
                }
            }
            write_values(key, cache.key(layer, position), kv_dim);
            write_values(value, cache.value(layer, position), kv_dim);
        }
    });
    // Every segment's attention over its own cache, in one dispatch too.
    const auto window = static_cast<size_t>(m_config.layers[static_cast<size_t>(layer)].window);
    const float* sinks = w.attention_sinks.empty() ? nullptr : w.attention_sinks.data();
    std::vector<CpuAttention::Request<BasicKvCache<Element>>> requests;
    requests.reserve(segments.size());
    for (const auto& segment : segments) {
        const auto& cache = segment.sequence->cache();
        const size_t first = static_cast<size_t>(segment.first);
        requests.push_back({&cache, layer, window, static_cast<size_t>(cache.size()),
                            segment.tokens.size(), &m_query[first * query_dim],
                            &m_attended[first * query_dim], sinks});
    }
    m_attention.run_all(m_pool,
                        std::span<const CpuAttention::Request<BasicKvCache<Element>>>(requests));
    for (const Pass& p : passes) {
        m_matmul.run(w.attention_output, &m_attended[p.first * query_dim], p.count, p.path_tokens,
                     &m_projected[p.first * dim]);
    }
    CpuMatmul::add_bias(m_projected.data(), w.attention_output_bias, count);
    if (m_config.post_norms) {
        normalize(m_projected.data(), w.post_attention_norm, count, m_projected.data());
    }
    for (size_t i = 0; i < dim * count; ++i) m_x[i] += m_projected[i];

    normalize(m_x.data(), w.ffn_norm, count, m_normed.data());
    for (const Pass& p : passes) {
        if (m_config.mixture_of_experts()) {
            const auto expert = [&](const FeedForwardWeights& weights, const float* in, int rows,
                                    float* out) {
                feed_forward(weights, in, rows, p.path_tokens, out);
            };
            const auto gate = [&](float* hidden, const float* up, int rows, size_t width) {
                activate(hidden, up, rows, width);
            };
            m_experts.run(w, &m_normed[p.first * dim], p.count, p.path_tokens,
                          &m_projected[p.first * dim], m_matmul, expert, gate);
        } else {
            feed_forward({w.gate, w.up, w.down}, &m_normed[p.first * dim], p.count, p.path_tokens,
                         &m_projected[p.first * dim]);
        }
    }
    if (m_config.post_norms) {
        normalize(m_projected.data(), w.post_ffn_norm, count, m_projected.data());
    }
    for (size_t i = 0; i < dim * count; ++i) m_x[i] += m_projected[i];
}

void CpuBackend::feed_forward(const FeedForwardWeights& w, const float* in, int count,
                              int path_tokens, float* out) {
    // Slices of equal size (within one), so none is a stray few rows.
    const int slices = (count + kFeedForwardSlice - 1) / kFeedForwardSlice;
    const size_t in_width = static_cast<size_t>(w.gate.columns);
    const size_t out_width = static_cast<size_t>(w.down.rows);
    for (int slice = 0, first = 0; slice < slices; ++slice) {
        const int rows = (count - first) / (slices - slice);
        feed_forward_slice(w, in + static_cast<size_t>(first) * in_width, rows, path_tokens,
                           out + static_cast<size_t>(first) * out_width);
        first += rows;
    }
}

void CpuBackend::feed_forward_slice(const FeedForwardWeights& w, const float* in, int count,
                                    int path_tokens, float* out) {
    const size_t ffn = static_cast<size_t>(w.gate.rows);
    m_matmul.run_group({{&w.gate, m_gate.data()}, {&w.up, m_up.data()}}, in, count, path_tokens);
    CpuMatmul::add_bias(m_gate.data(), w.gate_bias, count);
    CpuMatmul::add_bias(m_up.data(), w.up_bias, count);
    activate(m_gate.data(), m_up.data(), count, ffn);
    m_matmul.run(w.down, m_gate.data(), count, path_tokens, out);
    CpuMatmul::add_bias(out, w.down_bias, count);
}

void CpuBackend::activate(float* gate, const float* up, int count, size_t ffn) {
    // In blocks that start at fixed offsets of each token's row, so which elements the vector
    // loop takes (and which its scalar tail) never depends on the other rows of the step.
    constexpr size_t kBlock = 4096;
    const size_t blocks = (ffn + kBlock - 1) / kBlock;
    const size_t grain = std::max<size_t>(1, kLeastShareElements / std::min(ffn, kBlock));
    m_pool.parallel_for(blocks * static_cast<size_t>(count), grain, [&](size_t begin, size_t end) {
        for (size_t item = begin; item < end; ++item) {
            const size_t offset = (item / blocks) * ffn + (item % blocks) * kBlock;
            const size_t size = std::min(kBlock, ffn - (item % blocks) * kBlock);
            m_gate_activation(gate + offset, up + offset, size);
        }
    });
}

}  // namespace hearth
