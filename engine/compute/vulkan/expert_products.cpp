#include "engine/compute/vulkan/expert_products.h"

#include <stdexcept>
#include <string>

#include "shaders/matmul_experts_bf16_spv.h"
#include "shaders/matmul_experts_f16_spv.h"
#include "shaders/matmul_experts_f32_spv.h"
#include "shaders/matmul_experts_iq4_nl_spv.h"
#include "shaders/matmul_experts_iq4_xs_spv.h"
#include "shaders/matmul_experts_mxfp4_spv.h"
#include "shaders/matmul_experts_q2_k_spv.h"
#include "shaders/matmul_experts_q3_k_spv.h"
#include "shaders/matmul_experts_q4_0_spv.h"
#include "shaders/matmul_experts_q4_1_spv.h"
#include "shaders/matmul_experts_q4_k_spv.h"
#include "shaders/matmul_experts_q5_0_spv.h"
#include "shaders/matmul_experts_q5_1_spv.h"
#include "shaders/matmul_experts_q5_k_spv.h"
#include "shaders/matmul_experts_q6_k_spv.h"
#include "shaders/matmul_experts_q8_0_spv.h"
#include "shaders/matmul_experts_shared_bf16_spv.h"
#include "shaders/matmul_experts_shared_f16_spv.h"
#include "shaders/matmul_experts_shared_f32_spv.h"
#include "shaders/matmul_experts_shared_iq4_nl_spv.h"
#include "shaders/matmul_experts_shared_iq4_xs_spv.h"
#include "shaders/matmul_experts_shared_mxfp4_spv.h"
#include "shaders/matmul_experts_shared_q2_k_spv.h"
#include "shaders/matmul_experts_shared_q3_k_spv.h"
#include "shaders/matmul_experts_shared_q4_0_spv.h"
#include "shaders/matmul_experts_shared_q4_1_spv.h"
#include "shaders/matmul_experts_shared_q4_k_spv.h"
#include "shaders/matmul_experts_shared_q5_0_spv.h"
#include "shaders/matmul_experts_shared_q5_1_spv.h"
#include "shaders/matmul_experts_shared_q5_k_spv.h"
#include "shaders/matmul_experts_shared_q6_k_spv.h"
#include "shaders/matmul_experts_shared_q8_0_spv.h"

namespace hearth::vulkan {
namespace {

struct ExpertProduct {
    TensorType type;
    std::span<const uint32_t> subgroups, shared;
};

const ExpertProduct kProducts[] = {
    {TensorType::F32, matmul_experts_f32_spv, matmul_experts_shared_f32_spv},
    {TensorType::F16, matmul_experts_f16_spv, matmul_experts_shared_f16_spv},
    {TensorType::BF16, matmul_experts_bf16_spv, matmul_experts_shared_bf16_spv},
    {TensorType::Q4_0, matmul_experts_q4_0_spv, matmul_experts_shared_q4_0_spv},
    {TensorType::Q4_1, matmul_experts_q4_1_spv, matmul_experts_shared_q4_1_spv},
    {TensorType::Q5_0, matmul_experts_q5_0_spv, matmul_experts_shared_q5_0_spv},
    {TensorType::Q5_1, matmul_experts_q5_1_spv, matmul_experts_shared_q5_1_spv},
    {TensorType::Q8_0, matmul_experts_q8_0_spv, matmul_experts_shared_q8_0_spv},
    {TensorType::Q4_K, matmul_experts_q4_k_spv, matmul_experts_shared_q4_k_spv},
    {TensorType::Q5_K, matmul_experts_q5_k_spv, matmul_experts_shared_q5_k_spv},
    {TensorType::Q6_K, matmul_experts_q6_k_spv, matmul_experts_shared_q6_k_spv},
    {TensorType::Q2_K, matmul_experts_q2_k_spv, matmul_experts_shared_q2_k_spv},
    {TensorType::Q3_K, matmul_experts_q3_k_spv, matmul_experts_shared_q3_k_spv},
    {TensorType::IQ4_NL, matmul_experts_iq4_nl_spv, matmul_experts_shared_iq4_nl_spv},
    {TensorType::IQ4_XS, matmul_experts_iq4_xs_spv, matmul_experts_shared_iq4_xs_spv},
    {TensorType::MXFP4, matmul_experts_mxfp4_spv, matmul_experts_shared_mxfp4_spv},
};

}  // namespace

std::span<const uint32_t> expert_product_spirv(TensorType type, bool subgroups) {
    for (const auto& product : kProducts) {
        if (product.type == type) return subgroups ? product.subgroups : product.shared;
    }
    throw std::runtime_error("the Vulkan backend has no expert shader for " +
                             std::string(tensor_type_info(type).name) + " weights");
}

}  // namespace hearth::vulkan
