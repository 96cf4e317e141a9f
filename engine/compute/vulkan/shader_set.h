// The compute pipelines of the Vulkan backend, built once from the embedded SPIR-V through the
// device's pipeline cache: the element-wise and attention shaders, and a product and an
// embedding lookup for each weight type the model uses.
#pragma once

#include <array>
#include <memory>
#include <span>

#include "engine/compute/kv_cache_type.h"
#include "engine/compute/vulkan/device.h"
#include "engine/model/model.h"

namespace hearth::vulkan {

// Push-constant blocks, word for word as the shaders declare them.
struct MatmulPush {
    uint32_t rows, columns, tokens, first_input, first_row, output_stride, flags;
    float softcap;  // for kMatmulSoftcap
};
struct EmbeddingPush {
    uint32_t columns, first_row, rows, slot, ring;
    float scale;
};
struct NormPush {
    uint32_t rows, dim;
    float epsilon;
    uint32_t flags;  // kNormAccumulate
};
struct RopePush {
    uint32_t tokens, heads, head_dim, rope_pairs, first_position, neox;
};
struct KvStorePush {
    uint32_t tokens, heads, head_dim, rope_pairs, first_position, neox;
    uint32_t cache_rows;  // position p goes to row p % cache_rows
};
struct AttentionPush {
    uint32_t tokens, heads, kv_heads, head_dim, first_position;
    float scale;
    uint32_t window;      // 0: every earlier position
    float softcap;        // 0: none
    uint32_t cache_rows;  // position p is in row p % cache_rows
    uint32_t sinks;       // 1: the bound sinks (one logit per head) join each softmax
};
struct CountPush {
    uint32_t count;
};
struct ArgmaxPush {
    uint32_t count, slot;
};
// The mixture-of-experts shaders': route.comp, expert_tiles.comp, matmul.comp's EXPERTS variant
// and expert_sum.comp.
struct RoutePush {
    uint32_t tokens, experts, used;
};
struct ExpertTilesPush {
    uint32_t pairs, experts, tiles;
};
struct ExpertMatmulPush {
    uint32_t rows;  // of one expert
    uint32_t columns, first_expert, experts, output_stride, flags, used, unused;
};
struct ExpertSumPush {
    uint32_t count, dim, used;
};
struct SamplePush {
    uint32_t count;
    float temperature;
    uint32_t top_k;
    float top_p, min_p;
    uint32_t seed_low, seed_high, step, slot, ring;
};

inline constexpr uint32_t kMatmulBias = 1, kMatmulAccumulate = 2, kMatmulSoftcap = 4;
inline constexpr uint32_t kNormAccumulate = 1;
inline constexpr uint32_t kMatmulTile = 8;      // tokens per workgroup (matmul.comp TILE)
inline constexpr uint32_t kSlice = 32768;       // matmul.comp SLICE: workgroups in x
inline constexpr uint32_t kMaxHeadDim = 256;    // attention_256's MAX_HEAD_DIM
inline constexpr uint32_t kSmallHeadDim = 128;  // attention.comp's default MAX_HEAD_DIM
// attention.comp's shared memory: per lane (LANES = 32) a running maximum, a sum and one padded
// slice of 33 floats, whatever the head size.
inline constexpr uint32_t kAttentionSharedBytes = 32 * (2 + 33) * 4;
inline constexpr uint32_t kMaxDeviceTopK = 64;  // sample.comp MAX_TOP_K
// ExpertMatmulPush flags beside kMatmulBias: the input rows are the pairs' tokens (else the
// entries in tile order), the output rows the pair indices (else the entries in tile order).
inline constexpr uint32_t kExpertInputByToken = 8, kExpertOutputByPair = 16;
inline constexpr uint32_t kMaxExpertsUsed = 32;  // route.comp MAX_USED
inline constexpr uint32_t kMaxExperts = 1024;    // expert_tiles.comp MAX_EXPERTS

// Tiles of up to kMatmulTile (token, expert) pairs a step of `pairs` pairs over `experts` experts
// can need: each expert's last tile may be partial. The grouped product is dispatched for this
// many, the ones past the step's real count empty.
constexpr uint32_t expert_tile_bound(uint32_t pairs, uint32_t experts) {
    return pairs / kMatmulTile + (experts < pairs ? experts : pairs);
}

class ShaderSet {
public:
    // Builds the pipelines `model` needs, the KV cache's store and attention for `kv_cache` (as
    // effective_kv_cache_type gives it); throws VulkanError, or std::runtime_error naming a
    // shape the shaders cannot run (a head wider than kMaxHeadDim) or a device too small for
    // them.
    ShaderSet(Device& device, const Model& model, KvCacheType kv_cache = KvCacheType::F16);

    const Pipeline& rmsnorm() const { return *m_rmsnorm; }
    const Pipeline& rope() const { return *m_rope; }
    const Pipeline& kv_store() const { return *m_kv_store; }
    // Attention for the model's head size (attention, or attention_256 for heads over 128) and
    // cache type.
    const Pipeline& attention() const { return *m_attention; }
    // SwiGLU, or GeGLU or gpt-oss's clamped SwiGLU for a model that asks for it.
    const Pipeline& gate_activation() const { return *m_gate_activation; }
    const Pipeline& argmax() const { return *m_argmax; }
    const Pipeline& sample() const { return *m_sample; }
    const Pipeline& matmul(TensorType type) const;
    // Mixture-of-experts layers (built only for such a model): routing, grouping the pairs by
    // expert, the grouped product of stacked expert matrices, and the weighted sum into x.
    const Pipeline& route() const { return *m_route; }
    const Pipeline& expert_tiles() const { return *m_expert_tiles; }
    const Pipeline& expert_sum() const { return *m_expert_sum; }
    const Pipeline& expert_matmul(TensorType type) const;
    const Pipeline& embedding(TensorType type) const;
    // Matrix rows one product workgroup computes.
    uint32_t rows_per_workgroup() const { return m_rows_per_workgroup; }
    // How long building the pipelines took (compiling, or loading from the pipeline cache).
    double build_ms() const { return m_build_ms; }

private:
    static constexpr size_t kTypes = 40;  // TensorType ids are below this
    std::unique_ptr<Pipeline> m_rmsnorm, m_rope, m_kv_store, m_attention, m_gate_activation,
        m_argmax, m_sample;
    std::unique_ptr<Pipeline> m_route, m_expert_tiles, m_expert_sum;
    std::array<std::unique_ptr<Pipeline>, kTypes> m_matmul, m_embedding, m_expert_matmul;

    void build_experts(Device& device, const Model& model, bool subgroups);
    uint32_t m_rows_per_workgroup = 1;
    double m_build_ms = 0.0;
};

}  // namespace hearth::vulkan
