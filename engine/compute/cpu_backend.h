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
#include "engine/compute/kv_cache_type.h"
#include "engine/compute/thread_pool.h"
#include "engine/model/model.h"
#include "kernels/dot.h"
#include "kernels/gemm.h"
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
    std::vector<int> chunk_sizes() const override { return m_options.chunk_sizes; }
    int threads() const { return m_pool.size(); }
    // The type this backend's caches have (F16 where the model cannot use the one asked for).
    KvCacheType kv_cache_type() const { return m_kv_cache; }

    // The largest prefill step `options` allow, which sizes sliding-window layers' rings.
    static int largest_step(const CpuBackendOptions& options);
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
    template <typename Element>
    std::vector<float> forward_steps(std::span<const int32_t> tokens,
                                     CacheSequence<Element>& sequence, LogitRows rows);
    template <typename Element>
    void forward_chunk(std::span<const int32_t> tokens, CacheSequence<Element>& sequence,
                       LogitRows rows, std::vector<float>& logits);
    template <typename Element>
    void run_layer(int layer, int count, CacheSequence<Element>& sequence);
    // out[t * w.rows + r] = W[r] . in[t * w.columns ...] for t < count.
    void matmul(const WeightMatrix& w, const float* in, int count, float* out);
    // Several products of the same input (q/k/v, gate/up) as one pass over their rows: one
    // dispatch to the pool and one quantisation of the input per activation format.
    struct Product {
        const WeightMatrix* weights;
        float* out;
    };
    void matmul_group(std::initializer_list<Product> products, const float* in, int count);
    void matmul_dots(std::span<const Product> products, const float* in, int count);
    void matmul_panel(std::span<const Product> products, const float* in, int count);
    void matmul_blas(const WeightMatrix& w, const float* in, int count, float* out);
    void normalize(const float* in, const std::vector<float>& weight, int count, float* out);

    const Model& m_model;
    const ModelConfig& m_config;
    CpuBackendOptions m_options;
    KvCacheType m_kv_cache;
    ThreadPool m_pool;
    kernels::Isa m_isa;
    const kernels::DotTable& m_dots;
    const kernels::GemmTable* m_gemm;           // null where the CPU (or the chosen ISA) has none
    kernels::SwigluFunction m_gate_activation;  // SwiGLU or GeGLU, as the model asks
    CpuAttention m_attention;
    // Scratch, sized for the largest chunk once and reused: no allocation per token.
    std::vector<float> m_x, m_normed, m_query, m_key, m_value, m_attended, m_gate, m_up,
        m_projected;
    std::vector<std::byte> m_activations;
    std::vector<kernels::PanelBlock> m_panel;
    std::vector<float> m_weight_tile;
};

}  // namespace hearth
