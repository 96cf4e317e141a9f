// The AMX kernel over Q4_0 strips (strips.h), compiled with AVX-512 and AMX; it runs only
// where amx_int8_usable(). Per block one tile product multiplies the tokens' 32 activation bytes
// (tile A: a row per token, read in place from the BlockQ8Offset rows) with the strip's sixteen
// rows (tile B: eight quads x sixteen rows x four bytes, the strip's nibbles unpacked), giving a
// row of sixteen exact integer dots per token; the float work is then what the VNNI kernel does
// after its eight vpdpbusd. On a 2-core Xeon whose 512-bit vpdpbusd issues once a cycle, sixteen
// tokens over 5632 x 2048 (one thread) took 49.3 µs a token against 55.2 for the VNNI strip
// kernel and 71.3 for the row layout's prompt kernel (gemm_vnni.cpp, 512 tokens).
//
// The products of four blocks are in flight at once (tiles 0-3), and each group's products are
// converted only after the next group's are issued, so the float work never waits on a tile store
// it has just made.
#include <immintrin.h>

#include <algorithm>
#include <cstdint>

#include "kernels/activation_blocks.h"
#include "kernels/dot_variants.h"
#include "kernels/simd_helpers.h"
#include "kernels/strip_helpers.h"
#include "kernels/strips.h"

namespace hearth::kernels::amx {
namespace {

constexpr size_t kGroupBlocks = 4;  // blocks whose products are in flight at once
constexpr int kMostTokens = 16;     // a tile's rows

// The 64-byte operand of ldtilecfg (palette 1).
struct TileConfig {
    uint8_t palette = 1;
    uint8_t start_row = 0;
    uint8_t reserved[14] = {};
    uint16_t bytes_per_row[16] = {};
    uint8_t rows[16] = {};
};
static_assert(sizeof(TileConfig) == 64);

// Tiles 0-3: a block's products (tokens x 16 int32); 4-5: activations (tokens x 32 bytes);
// 6-7: weights (8 quads x 64 bytes). The configuration is per-thread CPU state that stays until
// changed, so a thread loads it only when its number of tokens changes (ldtilecfg also zeroes
// every tile, and short rows such as SmolLM's 576 columns run a pass in well under a
// microsecond). Inline assembly, not _tile_loadconfig: GCC 12 does not see the builtin read its
// operand and dropped the stores that fill it in.
void configure(int tokens) {
    thread_local int configured = 0;
    if (configured == tokens) return;
    TileConfig config;
    for (int tile = 0; tile < 4; ++tile) {
        config.rows[tile] = static_cast<uint8_t>(tokens);
        config.bytes_per_row[tile] = 64;
    }
    for (int tile = 4; tile < 6; ++tile) {
        config.rows[tile] = static_cast<uint8_t>(tokens);
        config.bytes_per_row[tile] = 32;
    }
    for (int tile = 6; tile < 8; ++tile) {
        config.rows[tile] = 8;
        config.bytes_per_row[tile] = 64;
    }
    asm volatile("ldtilecfg %0" ::"m"(config));
    configured = tokens;
}

// A block's sixteen rows as tile B wants them: quad q's bytes are row m's elements 4q..4q+3 at
// 4m.
[[gnu::always_inline]] inline void unpack_into(const StripBlock& block, uint8_t (&quads)[8][64]) {
    const Quads unpacked = unpack(block.nibbles, NibbleValues{});
#pragma GCC unroll 8
    for (int q = 0; q < 8; ++q) _mm512_store_si512(quads[q], unpacked.quad[q]);
}

// Tile product `tile` (0-3) of one block: signed activations times unsigned nibbles. GCC 12's
// tile intrinsics paste their tile numbers into the assembly text, so each tile is written out
// with literal numbers; inlined with a constant `tile`, the switch disappears.
#define HEARTH_TILE_PRODUCT(tile, activation_tile, weight_tile) \
    _tile_loadd(weight_tile, quads, 64);                        \
    _tile_loadd(activation_tile, tokens, stride);               \
    _tile_zero(tile);                                           \
    _tile_dpbsud(tile, activation_tile, weight_tile);           \
    _tile_stored(tile, products, 64)

[[gnu::always_inline]] inline void multiply(int tile, const uint8_t (&quads)[8][64],
                                            const int8_t* tokens, long stride, int32_t* products) {
    switch (tile) {
        case 0:
            HEARTH_TILE_PRODUCT(0, 4, 6);
            break;
        case 1:
            HEARTH_TILE_PRODUCT(1, 5, 7);
            break;
        case 2:
            HEARTH_TILE_PRODUCT(2, 4, 6);
            break;
        default:
            HEARTH_TILE_PRODUCT(3, 5, 7);
            break;
    }
}
#undef HEARTH_TILE_PRODUCT

template <int N>
struct Group {
    alignas(64) uint8_t quads[kGroupBlocks][8][64];
    alignas(64) int32_t products[kGroupBlocks][N][16];
    __m512 weight_scales[kGroupBlocks];
    size_t first = 0, blocks = 0;
};

// N tokens against a strip, with the tiles configured for N.
template <int N>
struct StripPass {
    static void run(const void* strips, size_t rows, const std::byte* activations, size_t stride,
                    float* out, size_t out_stride, size_t columns);
};

template <int N>
void StripPass<N>::run(const void* strips, size_t rows, const std::byte* activations, size_t stride,
                       float* out, size_t out_stride, size_t columns) {
    const auto* strip = static_cast<const StripBlock*>(strips);
    const size_t blocks = columns / 32;
    configure(N);
    StripSums<N> pass(activations, stride);
    // Converts a group's products, blocks in order, into the sums.
    const auto add = [&](const Group<N>& group) {
        for (size_t j = 0; j < group.blocks; ++j) {
            const size_t b = group.first + j;
#pragma GCC unroll 16
            for (int t = 0; t < N; ++t) {
                const __m512i dots = _mm512_sub_epi32(_mm512_load_si512(group.products[j][t]),
                                                      _mm512_set1_epi32(pass.tokens[t][b].offset));
                pass.add(t, b, dots, group.weight_scales[j]);
            }
        }
    };
    Group<N> groups[2];
    int current = 0;
    for (size_t first = 0; first < blocks; first += kGroupBlocks) {
        Group<N>& group = groups[current];
        group.first = first;
        group.blocks = std::min(kGroupBlocks, blocks - first);
        for (size_t j = 0; j < group.blocks; ++j) {
            prefetch_ahead(&strip[first + j]);
            unpack_into(strip[first + j], group.quads[j]);
            group.weight_scales[j] = weight_scales(strip[first + j].scales);
        }
#pragma GCC unroll 4
        for (size_t j = 0; j < group.blocks; ++j) {
            multiply(static_cast<int>(j), group.quads[j], pass.tokens[0][first + j].quants,
                     static_cast<long>(stride), group.products[j][0]);
        }
        current ^= 1;
        if (first > 0) add(groups[current]);
    }
    if (blocks > 0) add(groups[current ^ 1]);
    pass.store(rows, out, out_stride);
}

}  // namespace

void q4_0_strip_rows(const void* strip, size_t rows, const void* activations,
                     size_t activation_stride, size_t tokens, float* out, size_t out_stride,
                     size_t count) {
    strip_passes<kMostTokens, StripPass>(strip, rows, activations, activation_stride, tokens, out,
                                         out_stride, count);
}

}  // namespace hearth::kernels::amx
