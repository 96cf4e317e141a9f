// The fast CPU path: weights used in place from the mapped file, activations quantised on the
// fly for integer dot products, work split over a thread pool, an F16 or Q8_0 KV cache, and
// attention in blocks with an online softmax. Prompts run in chunks planned by the prefill planner;
// the LM head runs only on the rows asked for.
#pragma once

#include <optional>
#include <span>
#include <vector>

#include "engine/compute/backend.h"
#include "engine/compute/cpu_attention.h"
#include "engine/compute/cpu_experts.h"
#include "engine/compute/cpu_matmul.h"
#include "engine/compute/kv_cache_type.h"
#include "engine/compute/thread_pool.h"
#include "engine/model/model.h"
#include "kernels/dot.h"
#include "kernels/rms_norm.h"
#include "kernels/swiglu.h"

namespace hearth {

template <typename Element>
class CacheSequence;

struct CpuBackendOptions {
    int threads = 0;                                   // 0: one per hardware thread
    std::optional<kernels::Isa> isa;                   // kernels to use; none: the best
    std::vector<int> chunk_sizes{1, 8, 64, 256, 512};  // prefill step variants
    // From this many tokens in one product on, formats with panel kernels (kernels/gemm.h, where
    // the CPU has them) multiply all tokens at once with integer products at full vector width.
    int panel_threshold = 16;
    // From this many tokens on, the other formats are dequantised in tiles and multiplied with
    // OpenBLAS sgemm on float activations; below it, integer dot products per token win.
    int blas_threshold = 128;
    // How the KV cache stores keys and values (effective_kv_cache_type decides per model).
    KvCacheType kv_cache = KvCacheType::F16;
};

class CpuBackend final : public Backend {
public:
    CpuBackend(const Model& model, CpuBackendOptions options = {});

    std::string name() const override;
    std::unique_ptr<Sequence> create_sequence(int capacity) override;
    std::vector<float> forward(std::span<const int32_t> tokens, Sequence& sequence,
                               LogitRows rows) override;
    // One pass over the layers for every row's next prefill step together: each weight matrix
    // is read once per step for all rows (per-token rows share one product, larger prompt steps
    // get their own, as alone); attention runs per row over its own cache.
    std::vector<std::vector<float>> forward_batch(std::span<const BatchRow> rows) override;
    std::vector<int> chunk_sizes() const override { return m_options.chunk_sizes; }
    int threads() const { return m_pool.size(); }
    // The type this backend's caches have (F16 where the model cannot use the one asked for).
    KvCacheType kv_cache_type() const { return m_kv_cache; }

    // The largest prefill step `options` allow, which sizes sliding-window layers' rings.
    static int largest_step(const CpuBackendOptions& options);
    // The most rows one FFN product takes at once. A 512-token prompt step's hidden rows were
    // the largest scratch (Gemma 3 1B: 28 MiB of its 39), and slices of 128 read the weights no
    // more often: a panel kernel already passes over them once per 64 tokens.
    static constexpr int kFeedForwardSlice = 128;
    // Bytes of KV cache one sequence of `capacity` tokens takes (sliding-window layers keep
    // rings sized for the largest prefill step), in the cache type `options` give the model.
    static size_t kv_bytes(const ModelConfig& config, int capacity,
                           const CpuBackendOptions& options = {});
    // Bytes of scratch the backend allocates for `model` at most: activations for its largest
    // chunk, quantised activations, weight tiles and one row of logits. With the mapped file,
    // the model's own floats and the KV cache, this is all the memory a model costs.
    static size_t working_bytes(const Model& model, const CpuBackendOptions& options);
    // The scratch it holds now (equal to working_bytes once every path has run).
    size_t allocated_working_bytes() const;

private:
    // One sequence's tokens inside a step: rows [first, first + tokens.size()) of the scratch.
    template <typename Element>
    struct Segment {
        std::span<const int32_t> tokens;
        CacheSequence<Element>* sequence = nullptr;
        LogitRows rows = LogitRows::None;
        std::vector<float>* logits = nullptr;
        int first = 0;
    };
    // Scratch rows whose products run together. Each pass takes the path (integer dots, panel,
    // BLAS) that `path_tokens` tokens take, which is what each of its segments would take
    // alone: a row's numbers never depend on the rows beside it.
    struct Pass {
        int first = 0;
        int count = 0;
        int path_tokens = 0;
        size_t begin = 0, end = 0;  // the segments it covers, as indices into the planned order
    };

    template <typename Element>
    std::vector<std::vector<float>> forward_rows(std::span<const BatchRow> rows);
    template <typename Element>
    void forward_step(std::span<Segment<Element>> segments);
    template <typename Element>
    void run_layer(int layer, std::span<const Segment<Element>> segments,
                   std::span<const Pass> passes, int count);
    template <typename Element>
    void run_head(std::span<const Segment<Element>> segments);
    // Whether `tokens` tokens alone take the per-token integer dot path, which gives every
    // token the same numbers however many run together.
    bool per_token_path(int tokens) const;
    // Orders segments of `sizes` tokens (their indices into `order`) with the per-token ones
    // first and returns the passes over them: one for all per-token segments, one for each other.
    std::vector<Pass> plan_passes(std::span<const int> sizes, std::vector<size_t>& order) const;
    void normalize(const float* in, const std::vector<float>& weight, int count, float* out);
    // One gated FFN (SwiGLU, GeGLU or gpt-oss's clamped SwiGLU, with the biases it has) over
    // `count` rows of `in` into `out`, on the path `path_tokens` tokens take, in slices of at
    // most kFeedForwardSlice rows; m_gate and m_up hold a slice's hidden rows.
    void feed_forward(const FeedForwardWeights& w, const float* in, int count, int path_tokens,
                      float* out);
    void feed_forward_slice(const FeedForwardWeights& w, const float* in, int count,
                            int path_tokens, float* out);
    // The model's gate over `count` hidden rows of `ffn`, split over the pool.
    void activate(float* gate, const float* up, int count, size_t ffn);

    const Model& m_model;
    const ModelConfig& m_config;
    CpuBackendOptions m_options;
    KvCacheType m_kv_cache;
    ThreadPool m_pool;
    kernels::Isa m_isa;
    CpuMatmul m_matmul;
    kernels::RmsNormFunction m_rms_norm;
    kernels::SwigluFunction m_gate_activation;  // the gate the model asks for
    CpuAttention m_attention;
    CpuExperts m_experts;
    // Scratch, sized for the largest chunk once and reused: no allocation per token. m_angles
    // holds each row's rotation cosines then sines (head_dim / 2 each) for the step's layers.
    std::vector<float> m_x, m_normed, m_query, m_key, m_value, m_attended, m_angles, m_gate, m_up,
        m_projected, m_head;
};

}  // namespace hearth
