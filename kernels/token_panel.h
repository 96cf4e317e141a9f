// Activations of many tokens laid out for integer matrix products with the tokens in vector
// lanes: 16 tokens a group, each 32-element block quantised to 8 bits per token exactly as
// quantize_row_q8 does, its quants stored as 8 quads of 4 consecutive elements × 16 tokens.
// One 512-bit dpbusd then multiplies a quad with a 4-byte weight word broadcast to all lanes,
// so weights are read in place from the file and unpacked once for 16 tokens per group.
#pragma once

#include <cstddef>
#include <cstdint>

namespace hearth::kernels {

inline constexpr size_t kPanelTokens = 16;
inline constexpr size_t kPanelQuads = 8;

struct alignas(64) PanelBlock {
    int8_t quads[kPanelQuads][kPanelTokens][4];  // [quad][token][element in quad]
    float scale[kPanelTokens];
    int32_t sum[kPanelTokens];         // the token's 32 quants added up
    float scaled_sum[kPanelTokens];    // scale * sum: what weight minimums multiply
    int32_t first_half[kPanelTokens];  // the first 16 quants added up (16-element sub-blocks)
};

// Groups of 16 tokens `tokens` take (the last one padded with zero activations).
inline size_t panel_groups(size_t tokens) {
    return (tokens + kPanelTokens - 1) / kPanelTokens;
}
// Blocks a panel of `tokens` × `columns` (a multiple of 32) holds, laid out [group][block].
inline size_t panel_blocks(size_t tokens, size_t columns) {
    return panel_groups(tokens) * (columns / 32);
}

// Packs blocks [first, last) of the panel (indices into [group][block]) from row-major float
// activations `x` (tokens × columns); split so a thread pool can share the work.
void pack_panel(const float* x, size_t tokens, size_t columns, PanelBlock* panel, size_t first,
                size_t last);

}  // namespace hearth::kernels
