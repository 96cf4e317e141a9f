// Causal attention of a chunk of tokens over the F16 KV cache, spread over a thread pool. Work
// items are (KV head, slice of its query heads, tile of tokens): every row of an item reads the
// same cached keys and values, so the kernel converts each block of them once for all its rows.
// Each row's positions are taken in spans of fixed length whose states are folded in order; a
// decode step, whose few items would leave a thread idle, runs its spans in parallel.
#pragma once

#include <cstddef>
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
    // where window > 0); their keys and values are already in the cache's `layer`.
    void run(ThreadPool& pool, const KvCacheF16& cache, int layer, size_t window,
             size_t first_position, size_t count, const float* queries, float* out);

private:
    struct Layout;
    struct Call;
    struct Item;

    size_t start(const Call& call, const Item& item, kernels::AttentionRow* rows,
                 float* sums) const;
    void run_span(const Call& call, const Item& item, size_t span, kernels::AttentionRow* states,
                  float* sums, float* scratch) const;
    template <typename SpanStates>
    void finish(const Call& call, const Item& item, SpanStates span_states) const;

    AttentionShape m_shape;
    kernels::AttentionBlockFunction m_block;
    // The span states of a parallel decode step (item, span, row), kept between calls.
    std::vector<kernels::AttentionRow> m_span_states;
    std::vector<float> m_span_sums;
};

}  // namespace hearth
