#include "engine/compute/vulkan/shader_set.h"

#include <chrono>
#include <stdexcept>
#include <string>

#include "engine/compute/vulkan/expert_products.h"
#include "shaders/argmax_spv.h"
#include "shaders/attention_256_q8_0_spv.h"
#include "shaders/attention_256_spv.h"
#include "shaders/attention_q8_0_spv.h"
#include "shaders/attention_spv.h"
#include "shaders/clamped_swiglu_spv.h"
#include "shaders/embedding_bf16_spv.h"
#include "shaders/embedding_f16_spv.h"
#include "shaders/embedding_f32_spv.h"
#include "shaders/embedding_iq4_nl_spv.h"
#include "shaders/embedding_iq4_xs_spv.h"
#include "shaders/embedding_mxfp4_spv.h"
#include "shaders/embedding_q2_k_spv.h"
#include "shaders/embedding_q3_k_spv.h"
#include "shaders/embedding_q4_0_spv.h"
#include "shaders/embedding_q4_1_spv.h"
#include "shaders/embedding_q4_k_spv.h"
#include "shaders/embedding_q5_0_spv.h"
#include "shaders/embedding_q5_1_spv.h"
#include "shaders/embedding_q5_k_spv.h"
#include "shaders/embedding_q6_k_spv.h"
#include "shaders/embedding_q8_0_spv.h"
#include "shaders/expert_sum_spv.h"
#include "shaders/expert_tiles_spv.h"
#include "shaders/geglu_spv.h"
#include "shaders/kv_store_q8_0_spv.h"
#include "shaders/kv_store_spv.h"
#include "shaders/matmul_bf16_spv.h"
#include "shaders/matmul_f16_spv.h"
#include "shaders/matmul_f32_spv.h"
#include "shaders/matmul_iq4_nl_spv.h"
#include "shaders/matmul_iq4_xs_spv.h"
#include "shaders/matmul_mxfp4_spv.h"
#include "shaders/matmul_q2_k_spv.h"
#include "shaders/matmul_q3_k_spv.h"
#include "shaders/matmul_q4_0_spv.h"
#include "shaders/matmul_q4_1_spv.h"
#include "shaders/matmul_q4_k_spv.h"
#include "shaders/matmul_q5_0_spv.h"
#include "shaders/matmul_q5_1_spv.h"
#include "shaders/matmul_q5_k_spv.h"
#include "shaders/matmul_q6_k_spv.h"
#include "shaders/matmul_q8_0_spv.h"
#include "shaders/matmul_shared_bf16_spv.h"
#include "shaders/matmul_shared_f16_spv.h"
#include "shaders/matmul_shared_f32_spv.h"
#include "shaders/matmul_shared_iq4_nl_spv.h"
#include "shaders/matmul_shared_iq4_xs_spv.h"
#include "shaders/matmul_shared_mxfp4_spv.h"
#include "shaders/matmul_shared_q2_k_spv.h"
#include "shaders/matmul_shared_q3_k_spv.h"
#include "shaders/matmul_shared_q4_0_spv.h"
#include "shaders/matmul_shared_q4_1_spv.h"
#include "shaders/matmul_shared_q4_k_spv.h"
#include "shaders/matmul_shared_q5_0_spv.h"
#include "shaders/matmul_shared_q5_1_spv.h"
#include "shaders/matmul_shared_q5_k_spv.h"
#include "shaders/matmul_shared_q6_k_spv.h"
#include "shaders/matmul_shared_q8_0_spv.h"
#include "shaders/rmsnorm_spv.h"
#include "shaders/rope_spv.h"
#include "shaders/route_spv.h"
#include "shaders/sample_spv.h"
#include "shaders/swiglu_spv.h"

namespace hearth::vulkan {
namespace {

struct Variant {
    TensorType type;
    std::span<const uint32_t> matmul, matmul_shared, embedding;
};

const Variant kVariants[] = {
    {TensorType::F32, matmul_f32_spv, matmul_shared_f32_spv, embedding_f32_spv},
    {TensorType::F16, matmul_f16_spv, matmul_shared_f16_spv, embedding_f16_spv},
    {TensorType::BF16, matmul_bf16_spv, matmul_shared_bf16_spv, embedding_bf16_spv},
    {TensorType::Q4_0, matmul_q4_0_spv, matmul_shared_q4_0_spv, embedding_q4_0_spv},
    {TensorType::Q4_1, matmul_q4_1_spv, matmul_shared_q4_1_spv, embedding_q4_1_spv},
    {TensorType::Q5_0, matmul_q5_0_spv, matmul_shared_q5_0_spv, embedding_q5_0_spv},
    {TensorType::Q5_1, matmul_q5_1_spv, matmul_shared_q5_1_spv, embedding_q5_1_spv},
    {TensorType::Q8_0, matmul_q8_0_spv, matmul_shared_q8_0_spv, embedding_q8_0_spv},
    {TensorType::Q4_K, matmul_q4_k_spv, matmul_shared_q4_k_spv, embedding_q4_k_spv},
    {TensorType::Q5_K, matmul_q5_k_spv, matmul_shared_q5_k_spv, embedding_q5_k_spv},
    {TensorType::Q6_K, matmul_q6_k_spv, matmul_shared_q6_k_spv, embedding_q6_k_spv},
    {TensorType::Q2_K, matmul_q2_k_spv, matmul_shared_q2_k_spv, embedding_q2_k_spv},
    {TensorType::Q3_K, matmul_q3_k_spv, matmul_shared_q3_k_spv, embedding_q3_k_spv},
    {TensorType::IQ4_NL, matmul_iq4_nl_spv, matmul_shared_iq4_nl_spv, embedding_iq4_nl_spv},
    {TensorType::IQ4_XS, matmul_iq4_xs_spv, matmul_shared_iq4_xs_spv, embedding_iq4_xs_spv},
    {TensorType::MXFP4, matmul_mxfp4_spv, matmul_shared_mxfp4_spv, embedding_mxfp4_spv},
};

const Variant& variant(TensorType type) {
    for (const auto& v : kVariants) {
        if (v.type == type) return v;
    }
    throw std::runtime_error("the Vulkan backend has no shader for " +
                             std::string(tensor_type_info(type).name) + " weights");
}

template <typename Push>
std::unique_ptr<Pipeline> make(Device& device, std::string name, std::span<const uint32_t> spirv,
                               uint32_t bindings) {
    return std::make_unique<Pipeline>(device, std::move(name), spirv, bindings, sizeof(Push));
}

}  // namespace

ShaderSet::ShaderSet(Device& device, const Model& model, KvCacheType kv_cache) {
    const auto start = std::chrono::steady_clock::now();
    const auto& config = model.config();
    if (config.head_dim > static_cast<int>(kMaxHeadDim) || config.head_dim % 2 != 0) {
        throw std::runtime_error(
            "the Vulkan backend runs heads of up to " + std::to_string(kMaxHeadDim) +
            " even dimensions; this model's have " + std::to_string(config.head_dim));
    }
    const auto& info = device.info();
    if (info.max_shared_memory < kAttentionSharedBytes) {
        throw std::runtime_error(info.name + " offers " + std::to_string(info.max_shared_memory) +
                                 " bytes of shared memory; Hearth's attention shader needs " +
                                 std::to_string(kAttentionSharedBytes));
    }
    // With subgroup arithmetic each subgroup of a 64-wide workgroup computes one row.
    const bool subgroups = info.subgroup_arithmetic && 64 % info.subgroup_size == 0;
    m_rows_per_workgroup = subgroups ? 64 / info.subgroup_size : 1;
    m_rmsnorm = make<NormPush>(device, "rmsnorm", rmsnorm_spv, 3);
    m_rope = make<RopePush>(device, "rope", rope_spv, 2);
    const bool small_heads = config.head_dim <= static_cast<int>(kSmallHeadDim);
    if (kv_cache == KvCacheType::Q8_0) {
        m_kv_store = make<KvStorePush>(device, "kv_store_q8_0", kv_store_q8_0_spv, 5);
        m_attention =
            small_heads
                ? make<AttentionPush>(device, "attention_q8_0", attention_q8_0_spv, 5)
                : make<AttentionPush>(device, "attention_256_q8_0", attention_256_q8_0_spv, 5);
    } else {
        m_kv_store = make<KvStorePush>(device, "kv_store", kv_store_spv, 5);
        m_attention = small_heads
                          ? make<AttentionPush>(device, "attention", attention_spv, 5)
                          : make<AttentionPush>(device, "attention_256", attention_256_spv, 5);
    }
    switch (config.activation) {
        case Activation::GeluTanh:
            m_gate_activation = make<CountPush>(device, "geglu", geglu_spv, 2);
            break;
        case Activation::ClampedSwiglu:
            m_gate_activation = make<CountPush>(device, "clamped_swiglu", clamped_swiglu_spv, 2);
            break;
        case Activation::Silu:
            m_gate_activation = make<CountPush>(device, "swiglu", swiglu_spv, 2);
            break;
    }
    m_argmax = make<ArgmaxPush>(device, "argmax", argmax_spv, 2);
    m_sample = make<SamplePush>(device, "sample", sample_spv, 2);
    const auto add = [&](const WeightMatrix& w) {
        const auto id = static_cast<size_t>(w.type);
        if (m_matmul[id]) return;
        const Variant& v = variant(w.type);
        const std::string type(tensor_type_info(w.type).name);
        m_matmul[id] =
            make<MatmulPush>(device, "matmul " + type, subgroups ? v.matmul : v.matmul_shared, 4);
        m_embedding[id] = make<EmbeddingPush>(device, "embedding " + type, v.embedding, 3);
    };
    const auto& weights = model.weights();
    add(weights.token_embedding);
    add(weights.output);
    for (const auto& layer : weights.layers) {
        for (const auto* w : layer.matrices()) add(*w);
        if (config.mixture_of_experts()) add(layer.router);
    }
    if (config.mixture_of_experts()) build_experts(device, model, subgroups);
    m_build_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

const Pipeline& ShaderSet::matmul(TensorType type) const {
    const auto& pipeline = m_matmul[static_cast<size_t>(type)];
    if (!pipeline) throw std::logic_error("no product pipeline was built for this weight type");
    return *pipeline;
}

void ShaderSet::build_experts(Device& device, const Model& model, bool subgroups) {
    const auto& config = model.config();
    if (config.experts_used > static_cast<int>(kMaxExpertsUsed) ||
        config.expert_count > static_cast<int>(kMaxExperts)) {
        throw std::runtime_error(
            "the Vulkan backend routes tokens to up to " + std::to_string(kMaxExpertsUsed) +
            " of up to " + std::to_string(kMaxExperts) + " experts; this model uses " +
            std::to_string(config.experts_used) + " of " + std::to_string(config.expert_count));
    }
    m_route = make<RoutePush>(device, "route", route_spv, 3);
    m_expert_tiles = make<ExpertTilesPush>(device, "expert_tiles", expert_tiles_spv, 3);
    m_expert_sum = make<ExpertSumPush>(device, "expert_sum", expert_sum_spv, 3);
    for (const auto& layer : model.weights().layers) {
        for (const auto* w : {&layer.expert_gate, &layer.expert_up, &layer.expert_down}) {
            auto& pipeline = m_expert_matmul[static_cast<size_t>(w->type)];
            if (pipeline) continue;
            pipeline = make<ExpertMatmulPush>(
                device, "matmul experts " + std::string(tensor_type_info(w->type).name),
                expert_product_spirv(w->type, subgroups), 6);
        }
    }
}

const Pipeline& ShaderSet::expert_matmul(TensorType type) const {
    const auto& pipeline = m_expert_matmul[static_cast<size_t>(type)];
    if (!pipeline) throw std::logic_error("no expert product pipeline was built for this type");
    return *pipeline;
}

const Pipeline& ShaderSet::embedding(TensorType type) const {
    const auto& pipeline = m_embedding[static_cast<size_t>(type)];
    if (!pipeline) throw std::logic_error("no embedding pipeline was built for this weight type");
    return *pipeline;
}

}  // namespace hearth::vulkan
