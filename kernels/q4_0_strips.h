// Q4_0 weights repacked sixteen rows to a strip, for decode and batched decode on AVX-512 VNNI
// and AMX. In the file's layout each row's blocks lie one after another, so a kernel that puts
// rows in vector lanes (which is what lets a token's sixteen dot products come out of one chain,
// with no horizontal sums, and what AMX's tile products need) must transpose every block of every
// row on every read: on an AVX-512 host that transpose cost more than the products. A strip holds
// the same bytes (18 per 32 weights) laid out once, at load, as the products read them.
//
// Every kernel here equals scalar::dot_q4_0_offset (the twin of the AVX2 row kernel) bit for bit
// for each (row, token): per block an exact integer sum, its offset taken out, one conversion and
// one fused multiply-add with the two scales' product, blocks in order. So which kernel runs, and
// which rows and tokens share a pass, never changes a result.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/dot.h"

namespace hearth::kernels {

inline constexpr size_t kStripRows = 16;

// Block b of a strip: the sixteen rows' f16 scales, then their nibbles as the products want them.
// nibbles[q][m][i] is byte 4q + i of row m's block, so its low nibble is element 4q + i and its
// high nibble element 16 + 4q + i: the low nibbles of nibbles[q] are the rows' quad q (elements
// 4q..4q+3, one 32-bit lane per row) and the high nibbles their quad 4 + q.
struct StripBlock {
    uint16_t scales[kStripRows];
    uint8_t nibbles[4][kStripRows][4];
};
static_assert(sizeof(StripBlock) == kStripRows * 18, "a strip takes the rows' own bytes");

inline size_t strip_count(size_t rows) {
    return (rows + kStripRows - 1) / kStripRows;
}
// Blocks one strip of `columns` (a multiple of 32) holds.
inline size_t strip_blocks(size_t columns) {
    return columns / 32;
}

// Repacks `rows` Q4_0 rows of `columns` (row r at weights + r * row_bytes) into strip_count(rows)
// strips of strip_blocks(columns) blocks each; the last strip's missing rows repeat the last row.
void repack_q4_0_strips(const void* weights, size_t row_bytes, size_t rows, size_t columns,
                        StripBlock* out);

// The inverse: rows [first, first + count) of a matrix in strips, as the file lays them out,
// for readers of rows (a GPU upload, a dequantised row).
void unpack_q4_0_strips(const StripBlock* strips, size_t columns, size_t first, size_t count,
                        void* rows);

// One strip against `tokens` BlockQ8Offset activation rows (token t's at activations + t *
// activation_stride bytes): out[t * out_stride + m] for the first `rows` (at most kStripRows)
// rows of the strip; nothing past them is written.
using StripRowsFunction = void (*)(const StripBlock* strip, size_t rows, const void* activations,
                                   size_t activation_stride, size_t tokens, float* out,
                                   size_t out_stride, size_t count);

// The strip kernel for an instruction-set level: with AVX-512 VNNI, AMX's tile products for
// passes of ten tokens or more where the CPU and Linux allow them, and VNNI for the rest; null
// below AVX-512 VNNI (the row layout's kernels serve those CPUs).
StripRowsFunction q4_0_strip_rows(Isa isa);

// The kernels q4_0_strip_rows composes, for tests and benchmarks; null where this CPU lacks
// them. The AMX one takes any number of tokens, though below ten VNNI is faster.
StripRowsFunction q4_0_strip_rows_vnni();
StripRowsFunction q4_0_strip_rows_amx();

}  // namespace hearth::kernels
