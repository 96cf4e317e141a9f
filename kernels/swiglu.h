// The feed-forward gates. SwiGLU, Llama-style models': gate[i] = silu(gate[i]) * up[i], with
// silu(x) = x / (1 + e^-x). GeGLU, Gemma's: gate[i] = gelu(gate[i]) * up[i] with the tanh
// approximation 0.5x(1 + tanh(y)), y = sqrt(2/pi)(x + 0.044715x^3), computed as x / (1 + e^-2y)
// (the same identity). gpt-oss's clamped SwiGLU: x = min(gate, 7), gate[i] =
// x * sigmoid(1.702x) * (clamp(up, -7, 7) + 1). Per element they are cheap, but a 512-token prompt
// of TinyLlama runs one on 63 million elements, where libm's scalar expf alone took 1.5% of the
// prefill.
#pragma once

#include <cstddef>

#include "kernels/dot.h"

namespace hearth::kernels {

using SwigluFunction = void (*)(float* gate, const float* up, size_t count);

inline constexpr float kGeluScale = 0.7978845608f;  // sqrt(2 / pi)
inline constexpr float kClampedSwigluLimit = 7.0f;
inline constexpr float kClampedSwigluAlpha = 1.702f;

SwigluFunction swiglu(Isa isa);
inline SwigluFunction swiglu() {
    return swiglu(best_isa());
}
SwigluFunction geglu(Isa isa);
inline SwigluFunction geglu() {
    return geglu(best_isa());
}
SwigluFunction clamped_swiglu(Isa isa);
inline SwigluFunction clamped_swiglu() {
    return clamped_swiglu(best_isa());
}

// The per-ISA versions behind swiglu(); tests compare them.
namespace scalar {
void swiglu(float* gate, const float* up, size_t count);
void geglu(float* gate, const float* up, size_t count);
void clamped_swiglu(float* gate, const float* up, size_t count);
}  // namespace scalar

namespace avx2 {
void swiglu(float* gate, const float* up, size_t count);
void geglu(float* gate, const float* up, size_t count);
void clamped_swiglu(float* gate, const float* up, size_t count);
}  // namespace avx2

// The same operations sixteen lanes wide: the AVX2 versions' bits.
namespace avx512 {
void swiglu(float* gate, const float* up, size_t count);
void geglu(float* gate, const float* up, size_t count);
void clamped_swiglu(float* gate, const float* up, size_t count);
}  // namespace avx512

}  // namespace hearth::kernels
