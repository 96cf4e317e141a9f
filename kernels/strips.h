// Weights repacked sixteen rows to a strip, for decode and batched decode on AVX-512 VNNI and
// AMX: Q4_0, IQ4_NL, IQ4_XS and Q3_K. In the file's layout each row's blocks lie one after another,
// so a kernel that puts rows in vector lanes (which is what lets a token's sixteen dot products
// come out of one chain, with no horizontal sums, and what AMX's tile products need) must
// transpose every block of every row on every read: on an AVX-512 host that transpose cost more
// than the products. A strip holds the same bytes laid out once, at load, as the products read
// them; so a strip of sixteen rows takes the bytes of sixteen rows, and strip s begins where row
// 16s would.
//
// Every kernel here equals its format's strip twin (strip_twin) bit for bit for each (row,
// token): per block (32 elements; Q3_K's 256) an exact integer sum, its offset taken out, one
// conversion and one fused multiply-add with the two scales' product, blocks in order. So which
// kernel runs, and which rows and tokens share a pass, never changes a result.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/dot.h"

namespace hearth::kernels {

inline constexpr size_t kStripRows = 16;

// The sixteen rows' nibbles of a 32-element block, as the products want them: nibbles[q][m][i]
// is byte 4q + i of row m's block, so its low nibble is element 4q + i and its high nibble
// element 16 + 4q + i. The low nibbles of nibbles[q] are the rows' quad q (elements 4q..4q+3,
// one 32-bit lane per row) and the high nibbles their quad 4 + q.
using StripNibbles = uint8_t[4][kStripRows][4];

// Block b of a Q4_0 or IQ4_NL strip (the two share their 18-byte block): the sixteen rows' f16
// scales, then their nibbles.
struct StripBlock {
    uint16_t scales[kStripRows];
    StripNibbles nibbles;
};
static_assert(sizeof(StripBlock) == kStripRows * 18, "a strip takes the rows' own bytes");

// Super-block b of an IQ4_XS strip: the sixteen rows' f16 scales, their sub-block scales' high
// bit pairs and low nibbles as the file packs them per row, then each sub-block's nibbles.
struct StripSuperBlock {
    uint16_t scales[kStripRows];
    uint16_t scales_high[kStripRows];
    uint32_t scales_low[kStripRows];
    StripNibbles nibbles[8];
};
static_assert(sizeof(StripSuperBlock) == kStripRows * 136, "a strip takes the rows' own bytes");

// A 16-element sub-block of a Q3_K strip: the sixteen rows' quads (elements 4q..4q + 3, row m's
// at bytes 4m..4m + 3 of a 64-byte quad vector), each value's low bit pair and high bit apart.
// pairs[4m + i] holds at bits 2q..2q + 1 the pair of row m's element 4q + i; high[p] holds at bit
// q the high bit of byte p of quad q, and at bit 4 + q that of byte p + 32.
struct StripQ3KSubBlock {
    uint8_t pairs[4 * kStripRows];
    uint8_t high[2 * kStripRows];
};

// Super-block b of a Q3_K strip: the sixteen rows' f16 scales; per pair k of sub-blocks (2k and
// 2k + 1) their 6-bit scales' low four bits (byte m: row m's for 2k in the low nibble, for 2k + 1
// in the high one) and top bit pairs (bits 4m..4m + 3 of the eight bytes read as a little-endian
// word: row m's for 2k, then for 2k + 1); then the sixteen sub-blocks.
struct StripQ3KSuperBlock {
    uint16_t scales[kStripRows];
    uint8_t scales_low[8][kStripRows];
    uint8_t scales_high[8][8];
    StripQ3KSubBlock sub_blocks[16];
};
static_assert(sizeof(StripQ3KSuperBlock) == kStripRows * 110, "a strip takes the rows' own bytes");

// Whether `type` (a ggml type id) has a strip layout.
bool has_strip_layout(int type);

inline size_t strip_count(size_t rows) {
    return (rows + kStripRows - 1) / kStripRows;
}

// Repacks `rows` rows of a type with a strip layout, `columns` long (a multiple of its block;
// row r at weights + r * row_bytes), into strip_count(rows) strips at `out`, strip s at
// out + s * kStripRows * row_bytes; the last strip's missing rows repeat the last row.
void repack_strips(int type, const void* weights, size_t row_bytes, size_t rows, size_t columns,
                   void* out);

// The inverse: rows [first, first + count) of a matrix in strips, as the file lays them out,
// for readers of rows (a GPU upload, a dequantised row).
void unpack_strips(int type, const void* strips, size_t columns, size_t first, size_t count,
                   void* rows);

// What a type's strip kernels and twin read as activations: BlockQ8Offset for the 32-element
// formats, BlockQ8K for Q3_K (whose 16-element sub-blocks meet its per-16 sums).
ActivationFormat strip_activation_format(int type);

// One strip against `tokens` activation rows in its type's strip_activation_format (token t's at
// activations + t * activation_stride bytes): out[t * out_stride + m] for the first `rows` (at
// most kStripRows) rows of the strip, each `count` columns long; nothing past them is written.
using StripRowsFunction = void (*)(const void* strip, size_t rows, const void* activations,
                                   size_t activation_stride, size_t tokens, float* out,
                                   size_t out_stride, size_t count);

// The strip kernel of `type` for an instruction-set level: with AVX-512 VNNI, for Q4_0 AMX's
// tile products for passes of ten tokens or more where the CPU and Linux allow them, and VNNI
// for the rest; null below AVX-512 VNNI (the row layout's kernels serve those CPUs) and for
// types without a strip layout.
StripRowsFunction strip_rows(int type, Isa isa);

// The kernels strip_rows composes, for tests and benchmarks; null where this CPU lacks them.
// AMX serves Q4_0 only; it takes any number of tokens, though below ten VNNI is faster.
StripRowsFunction strip_rows_vnni(int type);
StripRowsFunction strip_rows_amx(int type);

// What every strip kernel of `type` equals for one (row, token): the row in the file's layout
// against one row of its strip_activation_format.
DotFunction strip_twin(int type);

}  // namespace hearth::kernels
