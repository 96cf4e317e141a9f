// Causal attention of a chunk of tokens over the F16 or Q8_0 KV cache, spread over a thread pool.
// Work items are (KV head, slice of its query heads, tile of tokens): every row of an item reads
// the same cached keys and values, so the kernel converts each block of them once for all its rows.
// Each row's positions are taken in spans of fixed length whose states are folded in order; a
// decode step, whose few items would leave a thread idle, runs its spans in parallel.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "engine/compute/kv_cache.h"
#include "engine/compute/thread_pool.h"
#include "kernels/attention.h"

namespace hearth {

struct AttentionShape {
    size_t head_dim;
    size_t heads;     // query heads
    size_t kv_heads;  // each serves heads / kv_heads query heads
    kernels::AttentionScoring scoring;
};

class CpuAttention {
public:
    CpuAttention(AttentionShape shape, kernels::Isa isa);

    // out (count × heads × head_dim) = softmax(scores) · values for `count` tokens at positions
    // first_position.., each seeing the positions up to its own (only the last `window` of them
    // where window > 0); their keys and values are already in the cache's `layer`. With `sinks`
    // (one logit per query head, gpt-oss's), each head's softmax has that one more logit in its
    // denominator, which weighs no value.
    void run(ThreadPool& pool, const KvCacheF16& cache, int layer, size_t window,
             size_t first_position, size_t count, const float* queries, float* out,
             const float* sinks = nullptr);
    void run(ThreadPool& pool, const KvCacheQ8_0& cache, int layer, size_t window,
             size_t first_position, size_t count, const float* queries, float* out,
             const float* sinks = nullptr);

    // The arguments of one run(), for run_all.
    template <typename Cache>
    struct Request {
        const Cache* cache;
        int layer;
        size_t window;
        size_t first_position;
        size_t count;
        const float* queries;
        float* out;
        const float* sinks = nullptr;
    };
    // Several sequences' attention in one dispatch to the pool, each row's numbers what run()
    // gives it: a batched decode step would otherwise wake the pool once per sequence and layer
    // for a few items each.
    void run_all(ThreadPool& pool, std::span<const Request<KvCacheF16>> requests);
    void run_all(ThreadPool& pool, std::span<const Request<KvCacheQ8_0>> requests);

private:
    struct Layout;
    template <typename Cache>
    struct Call;
    struct Item;

    template <typename Cache>
    void run_requests(ThreadPool& pool, std::span<const Request<Cache>> requests);
    template <typename Cache>
    void run_calls(ThreadPool& pool, std::span<const Call<Cache>> calls);
    size_t start(const float* queries, float* out, const Item& item, kernels::AttentionRow* rows,
                 float* sums) const;
    template <typename Cache>
    void run_span(const Call<Cache>& call, const Item& item, size_t span,
                  kernels::AttentionRow* states, float* sums, float* scratch) const;
    // Folds one block of `size` positions from `first` on into the rows' states.
    void fold(const KvCacheF16& cache, int layer, int first, size_t kv, size_t size,
              kernels::AttentionRow* states, size_t row_count, float* scratch) const;
    void fold(const KvCacheQ8_0& cache, int layer, int first, size_t kv, size_t size,
              kernels::AttentionRow* states, size_t row_count, float* scratch) const;
    template <typename Cache, typename SpanStates>
    void finish(const Call<Cache>& call, const Item& item, SpanStates span_states) const;

    AttentionShape m_shape;
    kernels::AttentionBlockFunction m_block;
    kernels::AttentionBlockQ8_0Function m_block_q8_0;
    // The span states of a parallel decode step (item, span, row), kept between calls.
    std::vector<kernels::AttentionRow> m_span_states;
    std::vector<float> m_span_sums;
    // Per call of run_calls: its first work unit and first span state (one past the last call's
    // at the end), kept between calls.
    std::vector<size_t> m_first_unit, m_first_state;
};

}  // namespace hearth
