// Random inputs for kernel tests: normal floats, and weight rows of any stored format that are
// plausible blocks (sane scales), so products stay finite and comparable.
#pragma once

#include <cstddef>
#include <random>
#include <vector>

#include "engine/format/tensor_types.h"

namespace hearth {

std::vector<float> random_floats(size_t n, std::mt19937& random, float spread = 1.0f);
std::vector<std::byte> random_weights(TensorType type, size_t n, std::mt19937& random);

}  // namespace hearth
