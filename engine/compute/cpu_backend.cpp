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

constexpr size_t kTileRows = 256;  // weight rows dequantised per sgemm call
// Elements of a norm, rotation or gated activation that make one share of the pool's work: a decode
// step's few rows of these take microseconds, less than waking the pool and waiting for it, so they
// run on the calling thread (a row's numbers do not depend on which thread computes it).
constexpr size_t kLeastShareElements = 8192;

// x <- x / sqrt(mean(x^2) + epsilon) * weight, over weight.size() values.
void rms_normalize(const float* x, const std::vector<float>& weight, float epsilon, float* out) {
    const size_t dim = weight.size();
    double sum_squares = 0.0;
    for (size_t i = 0; i < dim; ++i) sum_squares += static_cast<double>(x[i]) * x[i];
    const float scale = static_cast<float>(1.0 / std::sqrt(sum_squares / dim + epsilon));
    for (size_t i = 0; i < dim; ++i) out[i] = x[i] * scale * weight[i];
}

// Whether a product of `count` tokens runs on the panel kernels (matmul_group decides with it,
// working_bytes counts with it).
bool uses_panel(const kernels::GemmTable* gemm, const CpuBackendOptions& options,
                const WeightMatrix& w, int count) {
    return gemm != nullptr && count >= options.panel_threshold &&
           gemm->gemm[static_cast<uint32_t>(w.type)] != nullptr;
}

}  // namespace

CpuBackend::CpuBackend(const Model& model, CpuBackendOptions options)
    : m_model(model),
      m_config(model.config()),
      m_options(std::move(options)),
      m_kv_cache(effective_kv_cache_type(m_config, m_options.kv_cache)),
      m_pool(m_options.threads),
      m_isa(m_options.isa.value_or(kernels::best_isa())),
      m_dots(kernels::dot_table(m_isa)),
      m_gemm(kernels::gemm_table(m_isa)),
      m_gate_activation(m_config.activation == Activation::GeluTanh ? kernels::geglu(m_isa)
                                                                    : kernels::swiglu(m_isa)),
      m_attention({static_cast<size_t>(m_config.head_dim),
                   static_cast<size_t>(m_config.head_count),
                   static_cast<size_t>(m_config.kv_head_count),
                   {m_config.attention_scale, m_config.attention_softcap}},
                  m_isa) {
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
    if (m_gemm != nullptr && isa != m_gemm->name) isa += std::string(" + ") + m_gemm->name;
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
    const kernels::Isa isa = options.isa.value_or(kernels::best_isa());
    const auto& dots = kernels::dot_table(isa);
    const kernels::GemmTable* gemm = kernels::gemm_table(isa);
    const int largest = largest_step(options);
    const size_t dim = static_cast<size_t>(config.embedding_length);
    const size_t ffn = static_cast<size_t>(config.feed_forward_length);
    size_t per_token = 3 * dim + 2 * static_cast<size_t>(config.query_dim()) +
                       2 * static_cast<size_t>(config.kv_dim()) + 2 * ffn;
    size_t routing = 0;  // bytes of the experts' bookkeeping
    if (config.mixture_of_experts()) {
        const size_t experts = static_cast<size_t>(config.expert_count);
        const size_t routes = static_cast<size_t>(config.experts_used) * largest;
        per_token += experts + 2 * dim;  // router logits, one expert's rows in and out
        routing = routes * (sizeof(ExpertChoice) + sizeof(int)) + (2 * experts + 1) * sizeof(int);
    }
    const size_t floats = per_token * static_cast<size_t>(largest) * sizeof(float);
    // Mirrors matmul_group: the buffer each product of each step size uses, at its widest.
    size_t activations = 0, panel = 0, tile = 0;
    const auto visit = [&](std::initializer_list<const WeightMatrix*> group, int count) {
        std::vector<kernels::ActivationFormat> formats;
        size_t quantised = 0;
        for (const auto* w : group) {
            const auto id = static_cast<uint32_t>(w->type);
            const size_t columns = static_cast<size_t>(w->columns);
            if (uses_panel(gemm, options, *w, count)) {
                panel = std::max(
                    panel, kernels::panel_blocks(count, columns) * sizeof(kernels::PanelBlock));
            } else if (count >= options.blas_threshold) {
                tile = std::max(tile, kTileRows * columns * sizeof(float));
            } else if (std::find(formats.begin(), formats.end(), dots.format[id]) ==
                       formats.end()) {
                formats.push_back(dots.format[id]);
                quantised += kernels::activation_row_bytes(dots.format[id], columns) * count;
            }
        }
        activations = std::max(activations, quantised);
    };
    const auto& weights = model.weights();
    for (const int count : options.chunk_sizes) {
        for (const auto& layer : weights.layers) {
            visit({&layer.query, &layer.key, &layer.value}, count);
            visit({&layer.attention_output}, count);
            visit({&layer.gate, &layer.up}, count);
            visit({&layer.down}, count);
            // An expert's rows are at most the step's; as many as that is the widest case.
            if (!config.mixture_of_experts()) continue;
            visit({&layer.router}, count);
            visit({&layer.expert_gate, &layer.expert_up}, count);
            visit({&layer.expert_down}, count);
        }
    }
    visit({&weights.output}, 1);  // the LM head runs on the last row
    return floats + routing + activations + panel + tile +
           static_cast<size_t>(config.vocab_size) * sizeof(float);  // one logits row
}

size_t CpuBackend::allocated_working_bytes() const {
    size_t floats = 0;
    for (const auto* buffer :
         {&m_x, &m_normed, &m_query, &m_key, &m_value, &m_attended, &m_gate, &m_up, &m_projected,
          &m_head, &m_weight_tile, &m_router, &m_expert_in, &m_expert_out}) {
        floats += buffer->size();
    }
    const size_t routing =
        m_routes.size() * sizeof(ExpertChoice) +
        (m_expert_routes.size() + m_expert_start.size() + m_expert_fill.size()) * sizeof(int);
    return floats * sizeof(float) + routing + m_activations.size() +
           m_panel.size() * sizeof(kernels::PanelBlock) +
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
           (m_gemm == nullptr || tokens < m_options.panel_threshold);
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
    const auto grow = [count](std::vector<float>& buffer, size_t width) {
        if (buffer.size() < width * count) buffer.resize(width * count);
    };
    grow(m_x, dim);
    grow(m_normed, dim);
    grow(m_query, static_cast<size_t>(m_config.query_dim()));
    grow(m_key, static_cast<size_t>(m_config.kv_dim()));
    grow(m_value, static_cast<size_t>(m_config.kv_dim()));
    grow(m_attended, static_cast<size_t>(m_config.query_dim()));
    grow(m_gate, static_cast<size_t>(m_config.feed_forward_length));
    grow(m_up, static_cast<size_t>(m_config.feed_forward_length));
    grow(m_projected, dim);

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
        matmul(m_model.weights().output, &m_normed[pass.first * dim], pass.count, pass.path_tokens,
               out);
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
            rms_normalize(in + t * dim, weight, m_config.rms_epsilon, out + t * dim);
        }
    });
}

void CpuBackend::matmul(const WeightMatrix& w, const float* in, int count, int path_tokens,
                        float* out) {
    matmul_group({{&w, out}}, in, count, path_tokens);
}

void CpuBackend::matmul_group(std::initializer_list<Product> products, const float* in, int count,
                              int path_tokens) {
    Product panel[4], other[4];
    size_t panel_count = 0, other_count = 0;
    for (const auto& product : products) {
        if (uses_panel(m_gemm, m_options, *product.weights, path_tokens)) {
            panel[panel_count++] = product;
        } else {
            other[other_count++] = product;
        }
    }
    if (panel_count > 0) matmul_panel(std::span(panel, panel_count), in, count);
    if (other_count == 0) return;
    if (path_tokens >= m_options.blas_threshold) {
        for (size_t p = 0; p < other_count; ++p) {
            matmul_blas(*other[p].weights, in, count, other[p].out);
        }
        return;
    }
    matmul_dots(std::span(other, other_count), in, count);
}

// Rows are handed out in units: groups of kernels::kDotRows rows for formats with a row kernel
// (the last group of a product may be partial), single rows for the others. A row's numbers are
// the same in any unit, so how the pool splits them never shows.
void CpuBackend::matmul_dots(std::span<const Product> products, const float* in, int count) {
    struct Part {
        const WeightMatrix* w;
        float* out;
        kernels::DotFunction dot;
        kernels::DotManyFunction dot_many;
        kernels::DotRowsFunction dot_rows;
        size_t activation_offset, stride, first_unit, unit_rows;
    };
    Part parts[4];
    size_t part_count = 0, total_units = 0, used = 0;
    const size_t columns = static_cast<size_t>(products.front().weights->columns);
    kernels::ActivationFormat prepared[4];
    size_t prepared_offset[4];
    size_t prepared_count = 0;
    for (const auto& product : products) {
        const auto id = static_cast<uint32_t>(product.weights->type);
        const auto format = m_dots.format[id];
        const size_t stride = kernels::activation_row_bytes(format, columns);
        size_t offset = used;
        const auto found = std::find(prepared, prepared + prepared_count, format);
        if (found != prepared + prepared_count) {
            offset = prepared_offset[found - prepared];
        } else {
            prepared[prepared_count] = format;
            prepared_offset[prepared_count++] = used;
            used += stride * count;
        }
        const size_t unit_rows = m_dots.dot_rows[id] != nullptr ? kernels::kDotRows : 1;
        parts[part_count++] = {product.weights,
                               product.out,
                               m_dots.dot[id],
                               m_dots.dot_many[id],
                               m_dots.dot_rows[id],
                               offset,
                               stride,
                               total_units,
                               unit_rows};
        const size_t rows = static_cast<size_t>(product.weights->rows);
        total_units += (rows + unit_rows - 1) / unit_rows;
    }
    if (m_activations.size() < used) m_activations.resize(used);
    for (size_t p = 0; p < prepared_count; ++p) {
        const size_t stride = kernels::activation_row_bytes(prepared[p], columns);
        for (int t = 0; t < count; ++t) {
            kernels::prepare_activations(prepared[p], in + t * columns,
                                         m_activations.data() + prepared_offset[p] + t * stride,
                                         columns);
        }
    }
    const std::byte* activations = m_activations.data();
    // About sixteen rows to a grain, whatever the unit.
    const size_t grain = std::max<size_t>(1, 16 / parts[0].unit_rows);
    m_pool.parallel_for(total_units, grain, [&](size_t begin, size_t end) {
        for (size_t p = 0; p < part_count; ++p) {
            const Part& part = parts[p];
            const size_t rows = static_cast<size_t>(part.w->rows);
            const size_t units = (rows + part.unit_rows - 1) / part.unit_rows;
            const size_t first = std::max(begin, part.first_unit),
                         last = std::min(end, part.first_unit + units);
            const std::byte* tokens = activations + part.activation_offset;
            for (size_t unit = first; unit < last; ++unit) {
                const size_t r = (unit - part.first_unit) * part.unit_rows;
                const std::byte* row = part.w->row(static_cast<int64_t>(r));
                if (part.dot_rows != nullptr) {
                    // Each block of the rows is unpacked once for every token, and each
                    // (row, token) still gets its single dot's numbers bit for bit.
                    part.dot_rows(row, part.w->row_bytes, std::min(part.unit_rows, rows - r),
                                  tokens, part.stride, static_cast<size_t>(count), part.out + r,
                                  rows, columns);
                } else if (count == 1) {
                    part.out[r] = part.dot(row, tokens, columns);
                } else {
                    // Unpacks the row once per group of tokens; each token's result is still
                    // bit for bit its single dot's, so a batch's rows never change each other.
                    part.dot_many(row, tokens, part.stride, static_cast<size_t>(count),
                                  part.out + r, rows, columns);
                }
            }
        }
    });
}

// The panel is packed once for the group (split over the pool), then the products' rows are
// handed out in tiles of 16, each thread running the kernel over its tiles for every token.
void CpuBackend::matmul_panel(std::span<const Product> products, const float* in, int count) {
    constexpr size_t kRowTile = 16;
    const size_t columns = static_cast<size_t>(products.front().weights->columns);
    const size_t tokens = static_cast<size_t>(count);
    const size_t blocks = kernels::panel_blocks(tokens, columns);
    if (m_panel.size() < blocks) m_panel.resize(blocks);
    kernels::PanelBlock* panel = m_panel.data();
    m_pool.parallel_for(blocks, 8, [&](size_t begin, size_t end) {
        m_gemm->pack(in, tokens, columns, panel, begin, end);
    });
    size_t first_tile[5] = {};
    for (size_t p = 0; p < products.size(); ++p) {
        const size_t rows = static_cast<size_t>(products[p].weights->rows);
        first_tile[p + 1] = first_tile[p] + (rows + kRowTile - 1) / kRowTile;
    }
    m_pool.parallel_for(first_tile[products.size()], 1, [&](size_t begin, size_t end) {
        for (size_t p = 0; p < products.size(); ++p) {
            const size_t from = std::max(begin, first_tile[p]),
                         to = std::min(end, first_tile[p + 1]);
            if (from >= to) continue;
            const WeightMatrix& w = *products[p].weights;
            const size_t rows = static_cast<size_t>(w.rows);
            const size_t first_row = (from - first_tile[p]) * kRowTile;
            const size_t last_row = std::min(rows, (to - first_tile[p]) * kRowTile);
            m_gemm->gemm[static_cast<uint32_t>(w.type)](
                w.row(static_cast<int64_t>(first_row)), w.row_bytes, last_row - first_row, panel,
                tokens, columns, products[p].out + first_row, rows);
        }
    });
}

// Prefill: each tile of weight rows is dequantised once (split over the pool) and multiplied with
// all of the chunk's activations in one sgemm, which OpenBLAS threads itself.
void CpuBackend::matmul_blas(const WeightMatrix& w, const float* in, int count, float* out) {
    const size_t columns = static_cast<size_t>(w.columns);
    const size_t rows = static_cast<size_t>(w.rows);
    if (m_weight_tile.size() < kTileRows * columns) m_weight_tile.resize(kTileRows * columns);
    for (size_t first = 0; first < rows; first += kTileRows) {
        const size_t tile = std::min(kTileRows, rows - first);
        m_pool.parallel_for(tile, 8, [&](size_t begin, size_t end) {
            for (size_t r = begin; r < end; ++r) {
                dequantize(w.type, w.row(static_cast<int64_t>(first + r)),
                           &m_weight_tile[r * columns], columns);
            }
        });
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, count, static_cast<int>(tile),
                    static_cast<int>(columns), 1.0f, in, static_cast<int>(columns),
                    m_weight_tile.data(), static_cast<int>(columns), 0.0f, out + first,
                    static_cast<int>(rows));
    }
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

    normalize(m_x.data(), w.attention_norm, count, m_normed.data());
    for (const Pass& p : passes) {
        matmul_group({{&w.query, &m_query[p.first * query_dim]},
                      {&w.key, &m_key[p.first * kv_dim]},
                      {&w.value, &m_value[p.first * kv_dim]}},
                     &m_normed[p.first * dim], p.count, p.path_tokens);
    }
    // Per token: biases, per-head norms, rotation (its angles computed once for all heads), the
    // K/V write into its own sequence's cache; every segment's tokens in one dispatch, as a
    // batched decode step has one token in each.
    const size_t rope_grain = std::max<size_t>(1, kLeastShareElements / (query_dim + 2 * kv_dim));
    m_pool.parallel_for(static_cast<size_t>(count), rope_grain, [&](size_t begin, size_t end) {
        float cosines[kernels::kMaxAttentionHeadDim / 2], sines[kernels::kMaxAttentionHeadDim / 2];
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
                    rms_normalize(query + h * head_dim, w.query_norm, epsilon,
                                  query + h * head_dim);
                }
                for (int h = 0; h < m_config.kv_head_count; ++h) {
                    rms_normalize(key + h * head_dim, w.key_norm, epsilon, key + h * head_dim);
                }
            }
            if (rope != nullptr) {
                rope->angles(position, cosines, sines);
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
    std::vector<CpuAttention::Request<BasicKvCache<Element>>> requests;
    requests.reserve(segments.size());
    for (const auto& segment : segments) {
        const auto& cache = segment.sequence->cache();
        const size_t first = static_cast<size_t>(segment.first);
        requests.push_back({&cache, layer, window, static_cast<size_t>(cache.size()),
                            segment.tokens.size(), &m_query[first * query_dim],
                            &m_attended[first * query_dim]});
    }
    m_attention.run_all(m_pool,
                        std::span<const CpuAttention::Request<BasicKvCache<Element>>>(requests));
    for (const Pass& p : passes) {
        matmul(w.attention_output, &m_attended[p.first * query_dim], p.count, p.path_tokens,
               &m_projected[p.first * dim]);
    }
    if (m_config.post_norms) {
        normalize(m_projected.data(), w.post_attention_norm, count, m_projected.data());
    }
    for (size_t i = 0; i < dim * count; ++i) m_x[i] += m_projected[i];

    normalize(m_x.data(), w.ffn_norm, count, m_normed.data());
    for (const Pass& p : passes) {
        if (m_config.mixture_of_experts()) {
            run_experts(w, p);
        } else {
            feed_forward(w.gate, w.up, w.down, &m_normed[p.first * dim], p.count, p.path_tokens,
                         &m_projected[p.first * dim]);
        }
    }
    if (m_config.post_norms) {
        normalize(m_projected.data(), w.post_ffn_norm, count, m_projected.data());
    }
    for (size_t i = 0; i < dim * count; ++i) m_x[i] += m_projected[i];
}

void CpuBackend::feed_forward(const WeightMatrix& gate, const WeightMatrix& up,
                              const WeightMatrix& down, const float* in, int count, int path_tokens,
                              float* out) {
    const size_t ffn = static_cast<size_t>(gate.rows);
    matmul_group({{&gate, m_gate.data()}, {&up, m_up.data()}}, in, count, path_tokens);
    // In blocks that start at fixed offsets of each token's row, so which elements the vector
    // loop takes (and which its scalar tail) never depends on the other rows of the step.
    constexpr size_t kBlock = 4096;
    const size_t blocks = (ffn + kBlock - 1) / kBlock;
    const size_t grain = std::max<size_t>(1, kLeastShareElements / std::min(ffn, kBlock));
    m_pool.parallel_for(blocks * count, grain, [&](size_t begin, size_t end) {
        for (size_t item = begin; item < end; ++item) {
            const size_t offset = (item / blocks) * ffn + (item % blocks) * kBlock;
            const size_t size = std::min(kBlock, ffn - (item % blocks) * kBlock);
            m_gate_activation(&m_gate[offset], &m_up[offset], size);
        }
    });
    matmul(down, m_gate.data(), count, path_tokens, out);
}

void CpuBackend::run_experts(const LayerWeights& w, const Pass& pass) {
    const size_t dim = static_cast<size_t>(m_config.embedding_length);
    const int experts = m_config.expert_count;
    const size_t used = static_cast<size_t>(m_config.experts_used);
    const size_t count = static_cast<size_t>(pass.count);
    const float* in = &m_normed[pass.first * dim];
    float* out = &m_projected[pass.first * dim];
    const auto grow = [](auto& buffer, size_t size) {
        if (buffer.size() < size) buffer.resize(size);
    };
    grow(m_router, count * static_cast<size_t>(experts));
    grow(m_routes, count * used);
    grow(m_expert_routes, count * used);
    grow(m_expert_in, count * dim);
    grow(m_expert_out, count * dim);
    m_expert_start.assign(static_cast<size_t>(experts) + 1, 0);
    m_expert_fill.assign(static_cast<size_t>(experts), 0);

    matmul(w.router, in, pass.count, pass.path_tokens, m_router.data());
    for (size_t t = 0; t < count; ++t) {
        route_experts(std::span<const float>(&m_router[t * experts], static_cast<size_t>(experts)),
                      std::span(&m_routes[t * used], used));
    }
    // Counting sort of the choices by expert, each expert's rows in token order.
    for (size_t r = 0; r < count * used; ++r) ++m_expert_start[m_routes[r].expert + 1];
    for (int e = 0; e < experts; ++e) m_expert_start[e + 1] += m_expert_start[e];
    for (size_t r = 0; r < count * used; ++r) {
        const int e = m_routes[r].expert;
        m_expert_routes[m_expert_start[e] + m_expert_fill[e]++] = static_cast<int>(r);
    }
    // Each token's experts are added in expert order, whichever rows share the step.
    std::fill(out, out + count * dim, 0.0f);
    for (int e = 0; e < experts; ++e) {
        const int first = m_expert_start[e], rows = m_expert_start[e + 1] - first;
        if (rows == 0) continue;
        for (int j = 0; j < rows; ++j) {
            const size_t token = static_cast<size_t>(m_expert_routes[first + j]) / used;
            std::copy_n(in + token * dim, dim, &m_expert_in[j * dim]);
        }
        feed_forward(expert_matrix(w.expert_gate, experts, e),
                     expert_matrix(w.expert_up, experts, e),
                     expert_matrix(w.expert_down, experts, e), m_expert_in.data(), rows,
                     pass.path_tokens, m_expert_out.data());
        for (int j = 0; j < rows; ++j) {
            const size_t route = static_cast<size_t>(m_expert_routes[first + j]);
            const float weight = m_routes[route].weight;
            float* token_out = out + (route / used) * dim;
            const float* expert_out = &m_expert_out[j * dim];
            for (size_t i = 0; i < dim; ++i) token_out[i] += weight * expert_out[i];
        }
    }
}

}  // namespace hearth
