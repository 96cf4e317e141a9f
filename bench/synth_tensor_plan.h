// The tensors of a synthetic model, in the order they are written. That order is also the
// order their random values are drawn in, so adding a tensor to one shape never changes the
// bytes of another.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "bench/synth_shapes.h"

namespace hearth::bench {

// What a tensor holds, which decides its values and its stored type.
enum class TensorRole {
    Matrix,  // N(0, 0.02), in the mix's type
    Norm,    // ones, F32 in every mix (llama.cpp quantises no norm)
    // N(0, 0.02), F32 in every mix: biases, attention sinks and routers (llama.cpp's conversion
    // writes routers in F32 and llama-quantize leaves ffn_gate_inp as it finds it).
    Vector,
};

struct PlannedTensor {
    std::string name;
    uint64_t columns = 0;  // the row length: ggml's innermost dimension
    uint64_t rows = 1;     // 1 with a one-dimensional tensor
    uint64_t experts = 0;  // a stack of this many (rows, columns) matrices, outermost; 0: none
    int layer = -1;        // -1 outside the blocks
    TensorRole role = TensorRole::Matrix;

    // ggml's dimensions, innermost first.
    std::vector<uint64_t> shape() const;
    uint64_t elements() const { return columns * rows * (experts > 0 ? experts : 1); }
};

std::vector<PlannedTensor> tensor_plan(const SynthShape& shape);

}  // namespace hearth::bench
