// The AVX-512 VNNI panel kernels behind gemm_table(); tests call them directly to compare twins.
#pragma once

#include <cstddef>

#include "kernels/token_panel.h"

namespace hearth::kernels::vnni {

void pack(const float* x, size_t tokens, size_t columns, PanelBlock* panel, size_t first,
          size_t last);
void gemm_q4_0(const void* weights, size_t row_bytes, size_t rows, const PanelBlock* panel,
               size_t tokens, size_t columns, float* out, size_t out_stride);
void gemm_q5_0(const void* weights, size_t row_bytes, size_t rows, const PanelBlock* panel,
               size_t tokens, size_t columns, float* out, size_t out_stride);
void gemm_q8_0(const void* weights, size_t row_bytes, size_t rows, const PanelBlock* panel,
               size_t tokens, size_t columns, float* out, size_t out_stride);
void gemm_mxfp4(const void* weights, size_t row_bytes, size_t rows, const PanelBlock* panel,
                size_t tokens, size_t columns, float* out, size_t out_stride);
void gemm_iq4_nl(const void* weights, size_t row_bytes, size_t rows, const PanelBlock* panel,
                 size_t tokens, size_t columns, float* out, size_t out_stride);
void gemm_iq4_xs(const void* weights, size_t row_bytes, size_t rows, const PanelBlock* panel,
                 size_t tokens, size_t columns, float* out, size_t out_stride);
void gemm_q3_k(const void* weights, size_t row_bytes, size_t rows, const PanelBlock* panel,
               size_t tokens, size_t columns, float* out, size_t out_stride);
void gemm_q4_k(const void* weights, size_t row_bytes, size_t rows, const PanelBlock* panel,
               size_t tokens, size_t columns, float* out, size_t out_stride);
void gemm_q5_k(const void* weights, size_t row_bytes, size_t rows, const PanelBlock* panel,
               size_t tokens, size_t columns, float* out, size_t out_stride);
void gemm_q6_k(const void* weights, size_t row_bytes, size_t rows, const PanelBlock* panel,
               size_t tokens, size_t columns, float* out, size_t out_stride);

}  // namespace hearth::kernels::vnni
