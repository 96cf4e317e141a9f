// Scalar reference dequantisation: the ground truth every SIMD kernel and shader is tested
// against. `count` is a whole number of blocks of the format; `source` points at raw file bytes.
#pragma once

#include <cstddef>
#include <cstdint>

namespace hearth::kernels {

void dequantize_f16(const void* source, float* out, size_t count);
void dequantize_bf16(const void* source, float* out, size_t count);
void dequantize_q8_0(const void* source, float* out, size_t count);
void dequantize_q4_0(const void* source, float* out, size_t count);
void dequantize_q4_1(const void* source, float* out, size_t count);
void dequantize_q5_0(const void* source, float* out, size_t count);
void dequantize_q5_1(const void* source, float* out, size_t count);
void dequantize_q4_k(const void* source, float* out, size_t count);
void dequantize_q5_k(const void* source, float* out, size_t count);
void dequantize_q6_k(const void* source, float* out, size_t count);
void dequantize_q2_k(const void* source, float* out, size_t count);
void dequantize_q3_k(const void* source, float* out, size_t count);
void dequantize_iq4_nl(const void* source, float* out, size_t count);
void dequantize_iq4_xs(const void* source, float* out, size_t count);
void dequantize_mxfp4(const void* source, float* out, size_t count);

}  // namespace hearth::kernels
