#include "engine/compute/cpu_attention.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace hearth {
namespace {

// Rows one item may hold: with 64 rather than 32 (8 tokens of a TinyLlama head group), a
// prompt-shaped microbench ran 10% faster per row, the block conversion being shared more.
constexpr size_t kRowsPerItem = 64;
// Positions of a span, a multiple of every block length.
constexpr size_t kSpanPositions = 256;

constexpr float kNothingSeen = -std::numeric_limits<float>::infinity();

}  // namespace

// How the rows and positions of a call are split into work.
struct CpuAttention::Layout {
    size_t group, tile_tokens, tiles, slice_heads, slices, items, spans;
    bool parallel_spans;

    Layout(const AttentionShape& shape, size_t threads, size_t tokens, size_t positions) {
        group = shape.heads / shape.kv_heads;
        tile_tokens = std::min(tokens, std::max<size_t>(1, kRowsPerItem / group));
        tiles = (tokens + tile_tokens - 1) / tile_tokens;
        // Enough items for every thread twice over, as long as an item keeps four heads to
        // share its converted blocks; at most kRowsPerItem rows.
        const size_t per_slice = shape.kv_heads * tiles;
        slices = std::clamp<size_t>((2 * threads + per_slice - 1) / per_slice, 1,
                                    std::max<size_t>(1, group / 4));
        slices = std::max(slices, (group + kRowsPerItem - 1) / kRowsPerItem);
        slice_heads = (group + slices - 1) / slices;
        slices = (group + slice_heads - 1) / slice_heads;
        items = shape.kv_heads * slices * tiles;
        spans = (positions + kSpanPositions - 1) / kSpanPositions;
        parallel_spans = items < 2 * threads && spans > 1;
    }
    size_t item_rows() const { return tile_tokens * slice_heads; }
};

// What one request works on: its arguments and how its work is split.
template <typename Cache>
struct CpuAttention::Call : Request<Cache> {
    Layout layout;
};

// The rows of one item: tokens [first_token, last_token) × heads [first_head, first_head + heads).
struct CpuAttention::Item {
    size_t kv, first_token, last_token, first_head, heads;

    Item(const Layout& layout, size_t index, size_t count) {
        kv = index / (layout.slices * layout.tiles);
        first_token = index % layout.tiles * layout.tile_tokens;
        last_token = std::min(count, first_token + layout.tile_tokens);
        first_head = kv * layout.group + index / layout.tiles % layout.slices * layout.slice_heads;
        heads = std::min((kv + 1) * layout.group, first_head + layout.slice_heads) - first_head;
    }
    size_t rows() const { return (last_token - first_token) * heads; }
    // Where row r's query and output start.
    size_t offset(size_t r, size_t head_dim, size_t query_dim) const {
        return (first_token + r / heads) * query_dim + (first_head + r % heads) * head_dim;
    }
};

namespace {

// Folds a span's state into a row's. Every row folds its spans in span order with this same
// arithmetic whether they ran in one item or in parallel, so a row's result does not depend on
// the chunk it came in (speculative decoding relies on that).
void fold_span(kernels::AttentionRow& row, const kernels::AttentionRow& span, size_t head_dim) {
    if (span.denominator == 0.0f) return;  // the row sees none of the span
    const float largest = std::max(row.maximum, span.maximum);
    const float kept = std::exp(row.maximum - largest), added = std::exp(span.maximum - largest);
    row.denominator = row.denominator * kept + span.denominator * added;
    for (size_t d = 0; d < head_dim; ++d) row.out[d] = row.out[d] * kept + span.out[d] * added;
    row.maximum = largest;
}

}  // namespace

CpuAttention::CpuAttention(AttentionShape shape, kernels::Isa isa)
    : m_shape(shape),
      m_block(kernels::attention_block(isa)),
      m_block_q8_0(kernels::attention_block_q8_0(isa)) {}

void CpuAttention::run(ThreadPool& pool, const KvCacheF16& cache, int layer, size_t window,
                       size_t first_position, size_t count, const float* queries, float* out,
                       const float* sinks) {
    const Request<KvCacheF16> request{&cache, layer,   window, first_position,
                                      count,  queries, out,    sinks};
    run_requests(pool, std::span(&request, 1));
}

void CpuAttention::run(ThreadPool& pool, const KvCacheQ8_0& cache, int layer, size_t window,
                       size_t first_position, size_t count, const float* queries, float* out,
                       const float* sinks) {
    const Request<KvCacheQ8_0> request{&cache, layer,   window, first_position,
                                       count,  queries, out,    sinks};
    run_requests(pool, std::span(&request, 1));
}

void CpuAttention::run_all(ThreadPool& pool, std::span<const Request<KvCacheF16>> requests) {
    run_requests(pool, requests);
}

void CpuAttention::run_all(ThreadPool& pool, std::span<const Request<KvCacheQ8_0>> requests) {
    run_requests(pool, requests);
}

// Each request is laid out as if it ran alone, so its rows' arithmetic is the same.
template <typename Cache>
void CpuAttention::run_requests(ThreadPool& pool, std::span<const Request<Cache>> requests) {
    std::vector<Call<Cache>> calls;
    calls.reserve(requests.size());
    for (const auto& r : requests) {
        const Layout layout(m_shape, static_cast<size_t>(pool.size()), r.count,
                            r.first_position + r.count);
        calls.push_back({r, layout});
    }
    run_calls(pool, std::span<const Call<Cache>>(calls));
}

// The work units of all calls in one dispatch: a whole item, or for a call whose few items would
// leave a thread idle, one span of an item, whose states are folded in order afterwards.
template <typename Cache>
void CpuAttention::run_calls(ThreadPool& pool, std::span<const Call<Cache>> calls) {
    const size_t head_dim = m_shape.head_dim;
    m_first_unit.assign(calls.size() + 1, 0);
    m_first_state.assign(calls.size() + 1, 0);
    for (size_t c = 0; c < calls.size(); ++c) {
        const Layout& layout = calls[c].layout;
        const size_t units = layout.parallel_spans ? layout.items * layout.spans : layout.items;
        const size_t states =
            layout.parallel_spans ? layout.items * layout.spans * layout.item_rows() : 0;
        m_first_unit[c + 1] = m_first_unit[c] + units;
        m_first_state[c + 1] = m_first_state[c] + states;
    }
    const size_t states = m_first_state.back();
    if (m_span_states.size() < states) m_span_states.resize(states);
    if (m_span_sums.size() < states * head_dim) m_span_sums.resize(states * head_dim);
    pool.parallel_for(m_first_unit.back(), 1, [&](size_t begin, size_t end) {
        alignas(32) float scratch[kernels::kAttentionScratch];
        alignas(32) float sums[kRowsPerItem * kernels::kMaxAttentionHeadDim];
        kernels::AttentionRow rows[kRowsPerItem];
        size_t c = 0;
        for (size_t unit = begin; unit < end; ++unit) {
            while (unit >= m_first_unit[c + 1]) ++c;
            const Call<Cache>& call = calls[c];
            const Layout& layout = call.layout;
            const size_t local = unit - m_first_unit[c];
            if (!layout.parallel_spans) {
                const Item item(layout, local, call.count);
                finish(call, item, [&](size_t span) {
                    run_span(call, item, span, rows, sums, scratch);
                    return rows;
                });
                continue;
            }
            const size_t state = m_first_state[c] + local * layout.item_rows();
            run_span(call, Item(layout, local / layout.spans, call.count), local % layout.spans,
                     &m_span_states[state], &m_span_sums[state * head_dim], scratch);
        }
    });
    // A few rows' folds: not worth waking the pool again.
    for (size_t c = 0; c < calls.size(); ++c) {
        const Layout& layout = calls[c].layout;
        if (!layout.parallel_spans) continue;
        for (size_t index = 0; index < layout.items; ++index) {
            finish(calls[c], Item(layout, index, calls[c].count), [&](size_t span) {
                return &m_span_states[m_first_state[c] +
                                      (index * layout.spans + span) * layout.item_rows()];
            });
        }
    }
}

// An item's rows of the output: the states span_states(span) gives for each span, folded in
// span order, then normalised. A sink adds e^(sink - maximum) to the denominator here, once,
// whichever kernel and split made the states: the same for a row alone or in a chunk. (A sink
// far above every score overflows it to infinity, and the row to the limit it tends to, zero.)
template <typename Cache, typename SpanStates>
void CpuAttention::finish(const Call<Cache>& call, const Item& item, SpanStates span_states) const {
    const size_t head_dim = m_shape.head_dim;
    kernels::AttentionRow rows[kRowsPerItem];
    const size_t row_count = start(call.queries, call.out, item, rows, nullptr);
    for (size_t span = 0; span < call.layout.spans; ++span) {
        const kernels::AttentionRow* states = span_states(span);
        for (size_t r = 0; r < row_count; ++r) fold_span(rows[r], states[r], head_dim);
    }
    for (size_t r = 0; r < row_count; ++r) {
        float denominator = rows[r].denominator;
        if (call.sinks != nullptr) {
            denominator += std::exp(call.sinks[item.first_head + r % item.heads] - rows[r].maximum);
        }
        for (size_t d = 0; d < head_dim; ++d) rows[r].out[d] /= denominator;
    }
}

// Empty states for an item's rows, their weighted sums in `sums` (row r at r × head_dim) or,
// where that is null, zeroed in place in the output; returns how many rows the item has.
size_t CpuAttention::start(const float* queries, float* out_rows, const Item& item,
                           kernels::AttentionRow* rows, float* sums) const {
    const size_t head_dim = m_shape.head_dim, query_dim = m_shape.heads * head_dim;
    const size_t row_count = item.rows();
    for (size_t r = 0; r < row_count; ++r) {
        const size_t offset = item.offset(r, head_dim, query_dim);
        float* out = sums != nullptr ? &sums[r * head_dim] : &out_rows[offset];
        std::fill_n(out, head_dim, 0.0f);
        rows[r] = {&queries[offset], out, kNothingSeen, 0.0f, 0, 0};
    }
    return row_count;
}

// The states of an item's rows over the positions of one span, from empty: rows whose causal
// limit ends inside a block see only its first positions, and on a sliding-window layer rows
// whose window starts inside a block skip its first ones. Blocks before every row's window are
// skipped whole; block boundaries stay where they are, so a row's arithmetic does not change.
template <typename Cache>
void CpuAttention::run_span(const Call<Cache>& call, const Item& item, size_t span,
                            kernels::AttentionRow* states, float* sums, float* scratch) const {
    const size_t head_dim = m_shape.head_dim;
    const size_t row_count = start(call.queries, call.out, item, states, sums);
    const size_t block = kernels::attention_block_positions(head_dim);
    // Row r sees positions [window_start(r), limit(r)).
    const auto limit_of = [&](size_t r) {
        return call.first_position + item.first_token + r / item.heads + 1;
    };
    const auto window_start = [&](size_t r) {
        const size_t limit = limit_of(r);
        return call.window > 0 && limit > call.window ? limit - call.window : 0;
    };
    // The last token's limit bounds the span; the first token's window start opens it.
    const size_t end = std::min(call.first_position + item.last_token, (span + 1) * kSpanPositions);
    const size_t begin = std::max(span * kSpanPositions, window_start(0) / block * block);
    for (size_t first = begin; first < end; first += block) {
        const size_t size = std::min(block, end - first);
        for (size_t r = 0; r < row_count; ++r) {
            const size_t limit = limit_of(r), opening = window_start(r);
            states[r].visible = limit > first ? std::min(size, limit - first) : 0;
            states[r].hidden = opening > first ? std::min(size, opening - first) : 0;
        }
        fold(*call.cache, call.layer, static_cast<int>(first), item.kv, size, states, row_count,
             scratch);
    }
}

void CpuAttention::fold(const KvCacheF16& cache, int layer, int first, size_t kv, size_t size,
                        kernels::AttentionRow* states, size_t row_count, float* scratch) const {
    const size_t offset = kv * m_shape.head_dim;
    m_block(states, row_count, cache.key(layer, first) + offset, cache.value(layer, first) + offset,
            static_cast<size_t>(cache.row_size()), size, m_shape.head_dim, m_shape.scoring,
            scratch);
}

void CpuAttention::fold(const KvCacheQ8_0& cache, int layer, int first, size_t kv, size_t size,
                        kernels::AttentionRow* states, size_t row_count, float* scratch) const {
    const size_t offset = kv * m_shape.head_dim / kernels::kBlock32;
    m_block_q8_0(states, row_count, cache.key(layer, first) + offset,
                 cache.value(layer, first) + offset, static_cast<size_t>(cache.row_size()), size,
                 m_shape.head_dim, m_shape.scoring, scratch);
}

}  // namespace hearth
