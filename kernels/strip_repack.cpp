// Between the file's rows and the strip layout, both ways: plain byte moves that any CPU runs,
// kept apart from the strip kernels so the loader's parsing code links without them.
#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>

#include "kernels/dot_variants.h"
#include "kernels/quant_blocks.h"
#include "kernels/strips.h"

namespace hearth::kernels {
namespace {

// Row m's 16 bytes of nibbles `quants` into a strip's nibbles, and back.
void place_nibbles(const uint8_t* quants, size_t m, StripNibbles& nibbles) {
    for (size_t q = 0; q < 4; ++q) std::memcpy(nibbles[q][m], quants + 4 * q, 4);
}

void take_nibbles(const StripNibbles& nibbles, size_t m, uint8_t* quants) {
    for (size_t q = 0; q < 4; ++q) std::memcpy(quants + 4 * q, nibbles[q][m], 4);
}

// Q4_0 and IQ4_NL: an f16 scale and 16 bytes of nibbles a block.
template <typename BlockType>
struct BlockMoves {
    using Block = BlockType;
    using Strip = StripBlock;
    static constexpr size_t kColumns = 32;
    static void repack(const Block& block, size_t m, Strip& strip) {
        strip.scales[m] = block.scale;
        place_nibbles(block.quants, m, strip.nibbles);
    }
    static void unpack(const Strip& strip, size_t m, Block& block) {
        block.scale = strip.scales[m];
        take_nibbles(strip.nibbles, m, block.quants);
    }
};

struct SuperBlockMoves {
    using Block = BlockIQ4_XS;
    using Strip = StripSuperBlock;
    static constexpr size_t kColumns = 256;
    static void repack(const Block& block, size_t m, Strip& strip) {
        strip.scales[m] = block.scale;
        strip.scales_high[m] = block.scales_high;
        std::memcpy(&strip.scales_low[m], block.scales_low, sizeof strip.scales_low[m]);
        for (size_t j = 0; j < 8; ++j) place_nibbles(block.quants + 16 * j, m, strip.nibbles[j]);
    }
    static void unpack(const Strip& strip, size_t m, Block& block) {
        block.scale = strip.scales[m];
        block.scales_high = strip.scales_high[m];
        std::memcpy(block.scales_low, &strip.scales_low[m], sizeof block.scales_low);
        for (size_t j = 0; j < 8; ++j) take_nibbles(strip.nibbles[j], m, block.quants + 16 * j);
    }
};

template <typename Moves>
void repack(const void* weights, size_t row_bytes, size_t rows, size_t columns, void* out) {
    using Block = typename Moves::Block;
    using Strip = typename Moves::Strip;
    const size_t blocks = columns / Moves::kColumns;
    auto* strips = static_cast<Strip*>(out);
    for (size_t s = 0; s < strip_count(rows); ++s) {
        for (size_t m = 0; m < kStripRows; ++m) {
            const size_t row = std::min(s * kStripRows + m, rows - 1);
            const auto* source = reinterpret_cast<const Block*>(
                static_cast<const std::byte*>(weights) + row * row_bytes);
            for (size_t b = 0; b < blocks; ++b) Moves::repack(source[b], m, strips[s * blocks + b]);
        }
    }
}

template <typename Moves>
void unpack(const void* strips, size_t columns, size_t first, size_t count, void* rows) {
    using Block = typename Moves::Block;
    using Strip = typename Moves::Strip;
    const size_t blocks = columns / Moves::kColumns;
    auto* out = static_cast<Block*>(rows);
    for (size_t r = 0; r < count; ++r) {
        const size_t row = first + r;
        const Strip* strip = static_cast<const Strip*>(strips) + row / kStripRows * blocks;
        for (size_t b = 0; b < blocks; ++b)
            Moves::unpack(strip[b], row % kStripRows, out[r * blocks + b]);
    }
}

// Calls visit with the moves of `type`'s strips (a value of its Moves type).
template <typename Visit>
void with_moves(int type, const Visit& visit) {
    switch (type) {
        case kQ4_0:
            return visit(BlockMoves<BlockQ4_0>{});
        case kIQ4_NL:
            return visit(BlockMoves<BlockIQ4_NL>{});
        case kIQ4_XS:
            return visit(SuperBlockMoves{});
        default:
            throw std::invalid_argument("type " + std::to_string(type) + " has no strip layout");
    }
}

}  // namespace

bool has_strip_layout(int type) {
    return type == kQ4_0 || type == kIQ4_NL || type == kIQ4_XS;
}

void repack_strips(int type, const void* weights, size_t row_bytes, size_t rows, size_t columns,
                   void* out) {
    with_moves(
        type, [&](auto moves) { repack<decltype(moves)>(weights, row_bytes, rows, columns, out); });
}

void unpack_strips(int type, const void* strips, size_t columns, size_t first, size_t count,
                   void* rows) {
    with_moves(type,
               [&](auto moves) { unpack<decltype(moves)>(strips, columns, first, count, rows); });
}

}  // namespace hearth::kernels
