#include "kernels/token_panel.h"

#include <algorithm>
#include <cstring>

#include "kernels/activation_blocks.h"

namespace hearth::kernels {

void pack_panel(const float* x, size_t tokens, size_t columns, PanelBlock* panel, size_t first,
                size_t last) {
    const size_t blocks = columns / 32;
    for (size_t index = first; index < last; ++index) {
        const size_t group = index / blocks, block = index % blocks;
        PanelBlock& out = panel[index];
        std::memset(&out, 0, sizeof out);
        for (size_t lane = 0; lane < kPanelTokens; ++lane) {
            const size_t token = group * kPanelTokens + lane;
            if (token >= tokens) break;
            BlockQ8 quantised;
            quantize_row_q8(x + token * columns + block * 32, &quantised, 32);
            int32_t sum = 0;
            for (size_t i = 0; i < 32; ++i) {
                out.quads[i / 4][lane][i % 4] = quantised.quants[i];
                sum += quantised.quants[i];
                if (i == 15) out.first_half[lane] = sum;
            }
            out.scale[lane] = quantised.scale;
            out.sum[lane] = sum;
            out.scaled_sum[lane] = quantised.scaled_sum;
        }
    }
}

}  // namespace hearth::kernels
