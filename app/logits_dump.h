// The --dump-logits debugging surface: top-K logits at every prompt position and along a
// greedy continuation, as JSON, for comparing Hearth with another implementation.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/compute/backend.h"
#include "engine/model/model.h"

namespace hearth {

std::string dump_logits_json(const Model& model, Backend& backend,
                             const std::vector<int32_t>& prompt, int top_k, int greedy_steps,
                             int context_length);

}  // namespace hearth
