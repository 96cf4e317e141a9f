// Float -> stored weight formats, for writing GGUF files (benchmark models, tests). Plain
// round-to-nearest with per-block scales: valid files of the real formats, not llama.cpp's
// error-minimising search, which only matters for trained weights.
#pragma once

#include <cstddef>
#include <cstdint>

namespace hearth::kernels {

void quantize_f16(const float* x, void* out, size_t count);
void quantize_bf16(const float* x, void* out, size_t count);
void quantize_q8_0(const float* x, void* out, size_t count);  // count % 32 == 0
void quantize_q4_0(const float* x, void* out, size_t count);  // count % 32 == 0
void quantize_q5_0(const float* x, void* out, size_t count);  // count % 32 == 0
void quantize_q4_k(const float* x, void* out, size_t count);  // count % 256 == 0
void quantize_q6_k(const float* x, void* out, size_t count);  // count % 256 == 0

}  // namespace hearth::kernels
