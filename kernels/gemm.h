// Matrix products of quantised weight rows (raw file bytes, in place) with a token panel: the
// prompt path, where many tokens share each weight row and integer products at full vector
// width pay for the packing. Formats without a kernel here fall back to the caller's path.
#pragma once

#include <cstddef>

#include "kernels/dot.h"
#include "kernels/token_panel.h"

namespace hearth::kernels {

// out[t * out_stride + r] = row r · token t, for r < rows and t < tokens. `weights` points at
// row 0, rows `row_bytes` apart, each `columns` elements; `panel` holds panel_blocks(tokens,
// columns) blocks.
using GemmFunction = void (*)(const void* weights, size_t row_bytes, size_t rows,
                              const PanelBlock* panel, size_t tokens, size_t columns, float* out,
                              size_t out_stride);

// Packs blocks [first, last) of a panel, as pack_panel does (bit for bit).
using PackFunction = void (*)(const float* x, size_t tokens, size_t columns, PanelBlock* panel,
                              size_t first, size_t last);

struct GemmTable {
    static constexpr int kTypes = 40;  // indexed by ggml type id, like DotTable
    GemmFunction gemm[kTypes] = {};
    PackFunction pack = pack_panel;
    const char* name = "";
};

// The kernels of an instruction-set level (AVX-512 VNNI has them), or null for a level without.
const GemmTable* gemm_table(Isa isa);
inline const GemmTable* gemm_table() {
    return gemm_table(best_isa());
}
// Plain C++ twins of every kernel: what the SIMD kernels are tested against.
const GemmTable& scalar_gemm_table();

}  // namespace hearth::kernels
