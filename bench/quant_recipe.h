// Which stored type each tensor of a synthetic model gets, for the mix named on the command
// line: one type for every matrix (F16, Q8_0, Q4_0) or llama.cpp's Q4_K_M recipe.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "bench/synth_shapes.h"
#include "bench/synth_tensor_plan.h"
#include "engine/format/tensor_types.h"

namespace hearth::bench {

enum class QuantMix { F16, Q8_0, Q4_0, Q4_K_M };

std::optional<QuantMix> parse_quant_mix(std::string_view name);
// general.file_type: llama.cpp's llama_ftype number for the mix.
uint32_t file_type_id(QuantMix mix);
TensorType pick_type(QuantMix mix, const PlannedTensor& tensor, const SynthShape& shape);

}  // namespace hearth::bench
