// SwiGLU, the feed-forward gate of Llama-style models: gate[i] = silu(gate[i]) * up[i], with
// silu(x) = x / (1 + e^-x). Per element it is cheap, but a 512-token prompt of TinyLlama runs it
// on 63 million elements, where libm's scalar expf alone took 1.5% of the prefill.
#pragma once

#include <cstddef>

#include "kernels/dot.h"

namespace hearth::kernels {

using SwigluFunction = void (*)(float* gate, const float* up, size_t count);

SwigluFunction swiglu(Isa isa);
inline SwigluFunction swiglu() {
    return swiglu(best_isa());
}

// The per-ISA versions behind swiglu(); tests compare them.
namespace scalar {
void swiglu(float* gate, const float* up, size_t count);
}  // namespace scalar

namespace avx2 {
void swiglu(float* gate, const float* up, size_t count);
}  // namespace avx2

}  // namespace hearth::kernels
