// The per-ISA dot functions behind dot_table(); tests call them directly to compare twins.
#pragma once

#include <cstddef>
#include <cstdint>

namespace hearth::kernels {

namespace scalar {
float dot_f32(const void* w, const void* a, size_t n);
float dot_f16(const void* w, const void* a, size_t n);
float dot_bf16(const void* w, const void* a, size_t n);
float dot_q8_0(const void* w, const void* a, size_t n);
float dot_q4_0(const void* w, const void* a, size_t n);
float dot_q4_1(const void* w, const void* a, size_t n);
float dot_q5_0(const void* w, const void* a, size_t n);
float dot_q5_1(const void* w, const void* a, size_t n);
float dot_q4_k(const void* w, const void* a, size_t n);
float dot_q5_k(const void* w, const void* a, size_t n);
float dot_q6_k(const void* w, const void* a, size_t n);
float dot_q2_k(const void* w, const void* a, size_t n);
float dot_q3_k(const void* w, const void* a, size_t n);
float dot_iq4_nl(const void* w, const void* a, size_t n);
float dot_iq4_xs(const void* w, const void* a, size_t n);
float dot_q8_0_planar(const void* w, const void* a, size_t n);  // PlanarQ8 activations
float dot_q4_0_lanes(const void* w, const void* a, size_t n);   // LaneGroup activations
void add_scaled_f16(float scale, const uint16_t* v, float* out, size_t n);
}  // namespace scalar

namespace avx2 {
float dot_f32(const void* w, const void* a, size_t n);
float dot_f16(const void* w, const void* a, size_t n);
float dot_bf16(const void* w, const void* a, size_t n);
float dot_q8_0(const void* w, const void* a, size_t n);
float dot_q4_0(const void* w, const void* a, size_t n);
float dot_q4_1(const void* w, const void* a, size_t n);
float dot_q5_0(const void* w, const void* a, size_t n);
float dot_q5_1(const void* w, const void* a, size_t n);
float dot_q4_k(const void* w, const void* a, size_t n);
float dot_q5_k(const void* w, const void* a, size_t n);
float dot_q6_k(const void* w, const void* a, size_t n);
float dot_q2_k(const void* w, const void* a, size_t n);
float dot_q3_k(const void* w, const void* a, size_t n);
float dot_iq4_nl(const void* w, const void* a, size_t n);
float dot_iq4_xs(const void* w, const void* a, size_t n);
void add_scaled_f16(float scale, const uint16_t* v, float* out, size_t n);
}  // namespace avx2

namespace vnni {
float dot_q8_0(const void* w, const void* a, size_t n);  // PlanarQ8 activations
float dot_q4_0(const void* w, const void* a, size_t n);  // LaneGroup activations
float dot_q4_k(const void* w, const void* a, size_t n);  // BlockQ8K activations
}  // namespace vnni

}  // namespace hearth::kernels
