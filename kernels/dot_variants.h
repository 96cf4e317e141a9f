// The per-ISA dot functions behind dot_table().
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/dot.h"
#include "kernels/strips.h"

namespace hearth::kernels {

// ggml type ids, as GGUF files store them.
enum TypeId {
    kF32 = 0,
    kF16 = 1,
    kQ4_0 = 2,
    kQ4_1 = 3,
    kQ5_0 = 6,
    kQ5_1 = 7,
    kQ8_0 = 8,
    kQ2_K = 10,
    kQ3_K = 11,
    kQ4_K = 12,
    kQ5_K = 13,
    kQ6_K = 14,
    kIQ4_NL = 20,
    kIQ4_XS = 23,
    kBF16 = 30,
    kMXFP4 = 39
};

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
float dot_mxfp4(const void* w, const void* a, size_t n);
float dot_q4_0_lanes(const void* w, const void* a, size_t n);     // LaneGroup activations
float dot_q8_0_lanes(const void* w, const void* a, size_t n);     // LaneGroup activations
float dot_q5_0_lanes(const void* w, const void* a, size_t n);     // LaneGroup activations
float dot_iq4_nl_lanes(const void* w, const void* a, size_t n);   // LaneGroup activations
float dot_mxfp4_lanes(const void* w, const void* a, size_t n);    // LaneGroup activations
float dot_iq4_xs_lanes(const void* w, const void* a, size_t n);   // LaneGroup activations
float dot_q4_0_offset(const void* w, const void* a, size_t n);    // BlockQ8Offset activations
float dot_iq4_nl_offset(const void* w, const void* a, size_t n);  // BlockQ8Offset activations
float dot_iq4_xs_offset(const void* w, const void* a, size_t n);  // BlockQ8Offset activations
float dot_q3_k_fma(const void* w, const void* a, size_t n);       // BlockQ8K, one FMA a block
void add_scaled_f16(float scale, const uint16_t* v, float* out, size_t n);
}  // namespace scalar

namespace avx2 {
// Sets the formats' AVX2 kernels, single- and many-token, over a table of scalar ones.
void set_kernels(DotTable& table);
// Sets IQ4_NL's and MXFP4's AVX2 kernels (dot_lookup_avx2.cpp), single- and many-token.
void set_lookup_kernels(DotTable& table);
// Sets the row kernels (dot_rows_avx2.cpp), with the single- and many-token dots that equal them.
void set_row_kernels(DotTable& table);
void add_scaled_f16(float scale, const uint16_t* v, float* out, size_t n);
}  // namespace avx2

namespace vnni {
// Sets Q4_0's, Q5_0's, IQ4_NL's, MXFP4's, IQ4_XS's and Q8_0's single-token, many-token and row
// kernels (LaneGroup activations).
void set_grid_kernels(DotTable& table);
// Sets Q3_K's, Q4_K's and Q6_K's single- and many-token kernels (BlockQ8K activations, as the
// AVX2 ones).
void set_kernels(DotTable& table);
// The StripRowsFunctions (strips.h) of Q4_0, IQ4_NL, IQ4_XS and Q3_K: rows in lanes, four
// vpdpbusd per 16 elements and token.
StripRowsFunction strip_rows(int type);
}  // namespace vnni
namespace amx {
// A StripRowsFunction (strips.h) of Q4_0 on AMX tiles: one tile product per block for up to 16
// tokens. Runs only where amx_int8_usable().
void q4_0_strip_rows(const void* strip, size_t rows, const void* activations,
                     size_t activation_stride, size_t tokens, float* out, size_t out_stride,
                     size_t count);
}  // namespace amx

}  // namespace hearth::kernels
