// Between the file's Q4_0 rows and the strip layout, both ways: plain byte moves that any CPU
// runs, kept apart from the strip kernels so the loader's parsing code links without them.
#include <algorithm>
#include <cstring>

#include "kernels/q4_0_strips.h"
#include "kernels/quant_blocks.h"

namespace hearth::kernels {

void repack_q4_0_strips(const void* weights, size_t row_bytes, size_t rows, size_t columns,
                        StripBlock* out) {
    const size_t blocks = strip_blocks(columns);
    for (size_t s = 0; s < strip_count(rows); ++s) {
        for (size_t m = 0; m < kStripRows; ++m) {
            const size_t row = std::min(s * kStripRows + m, rows - 1);
            const auto* source = reinterpret_cast<const BlockQ4_0*>(
                static_cast<const std::byte*>(weights) + row * row_bytes);
            for (size_t b = 0; b < blocks; ++b) {
                StripBlock& block = out[s * blocks + b];
                block.scales[m] = source[b].scale;
                for (size_t q = 0; q < 4; ++q)
                    std::memcpy(block.nibbles[q][m], source[b].quants + 4 * q, 4);
            }
        }
    }
}

void unpack_q4_0_strips(const StripBlock* strips, size_t columns, size_t first, size_t count,
                        void* rows) {
    const size_t blocks = strip_blocks(columns);
    auto* out = static_cast<BlockQ4_0*>(rows);
    for (size_t r = 0; r < count; ++r) {
        const size_t row = first + r, m = row % kStripRows;
        const StripBlock* strip = strips + row / kStripRows * blocks;
        for (size_t b = 0; b < blocks; ++b) {
            BlockQ4_0& block = out[r * blocks + b];
            block.scale = strip[b].scales[m];
            for (size_t q = 0; q < 4; ++q)
                std::memcpy(block.quants + 4 * q, strip[b].nibbles[q][m], 4);
        }
    }
}

}  // namespace hearth::kernels
