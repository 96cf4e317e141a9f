// The tensors of a synthetic model, in the order they are written. That order is also the
// order their random values are drawn in, so adding a tensor to one shape never changes the
// bytes of another.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "bench/synth_shapes.h"

namespace hearth::bench {

struct PlannedTensor {
    std::string name;
    uint64_t columns = 0;  // the row length: ggml's innermost dimension
    uint64_t rows = 1;
    int layer = -1;     // -1 outside the blocks
    bool norm = false;  // a norm's weights: F32 ones, in every mix (llama.cpp quantises none)
};

std::vector<PlannedTensor> tensor_plan(const SynthShape& shape);

}  // namespace hearth::bench
