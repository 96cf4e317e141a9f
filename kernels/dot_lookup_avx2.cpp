// AVX2 + FMA + F16C dots of the formats whose 32-value blocks look their 4-bit codes up in a grid
// of 16 signed bytes, one scale per block: IQ4_NL and MXFP4 (compiled, and run, as dot_avx2.cpp
// is). Each kernel is written for a group of K tokens (dot_many.h), as there.
#include <immintrin.h>

#include <cstddef>
#include <cstdint>

#include "kernels/activation_blocks.h"
#include "kernels/dot_helpers_avx2.h"
#include "kernels/dot_many.h"
#include "kernels/dot_variants.h"
#include "kernels/quant_blocks.h"
#include "kernels/simd_helpers.h"

namespace hearth::kernels::avx2 {
namespace {

// IQ4_NL and MXFP4: the nibbles index `grid` through a byte shuffle, and each block's one scale
// (`scale_of` it) weights its integer dot; blocks alternate between two independent accumulators.
template <typename Block, int K, typename Scale>
void grid_blocks(const void* w, const TokenGroup<K>& group, size_t n, const int8_t (&grid)[16],
                 Scale scale_of) {
    const auto* x = static_cast<const Block*>(w);
    const auto y = activation_rows<BlockQ8>(group);
    const __m256i table = grid_table(grid);
    __m256 acc[K][2] = {};
    for (size_t b = 0; b < n / 32; ++b) {
        const __m256i values = _mm256_shuffle_epi8(table, nibbles(x[b].quants));
        const float scale = scale_of(x[b]);
        for (int t = 0; t < K; ++t) {
            const __m256i dot = signed_dot(values, load(y[t][b].quants));
            acc[t][b % 2] = add_scaled<K>(acc[t][b % 2], scale, y[t][b].scale, dot);
        }
    }
    for (int t = 0; t < K; ++t) group.put(t, horizontal_sum(_mm256_add_ps(acc[t][0], acc[t][1])));
}

constexpr auto iq4_nl = []<int K>(const void* w, const TokenGroup<K>& group, size_t n) {
    grid_blocks<BlockIQ4_NL>(w, group, n, kIq4Values,
                             [](const BlockIQ4_NL& block) { return half(block.scale); });
};

constexpr auto mxfp4 = []<int K>(const void* w, const TokenGroup<K>& group, size_t n) {
    grid_blocks<BlockMXFP4>(w, group, n, kMxfp4Values,
                            [](const BlockMXFP4& block) { return mxfp4_scale(block.exponent); });
};

}  // namespace

void set_lookup_kernels(DotTable& table) {
    set_kernel<iq4_nl>(table, kIQ4_NL);
    set_kernel<mxfp4>(table, kMXFP4);
}

}  // namespace hearth::kernels::avx2
