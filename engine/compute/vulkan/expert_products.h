// The SPIR-V of the grouped expert product (matmul.comp compiled with EXPERTS) for each weight
// type: a table of its own beside ShaderSet's, since only mixture-of-experts models need it.
#pragma once

#include <cstdint>
#include <span>

#include "engine/format/tensor_types.h"

namespace hearth::vulkan {

// The variant reducing with subgroup arithmetic (`subgroups`), or in shared memory. Throws
// std::runtime_error naming a weight type the shaders cannot read.
std::span<const uint32_t> expert_product_spirv(TensorType type, bool subgroups);

}  // namespace hearth::vulkan
