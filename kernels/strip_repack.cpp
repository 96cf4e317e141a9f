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

// Q3_K: the values' bits and the 6-bit scales regrouped as StripQ3KSuperBlock says, each bit
// moved as it is (a value's pair and high bit, a scale's nibble and top pair), so unpacking
// writes back every byte of the file's block. In the file, sub-block j's element 4q + i lies in
// byte 4q + i of its sixteen bytes of pairs and of high bits (pair_bytes, high_bytes), at the
// same bit for all sixteen (pair_shift, high_shift).
struct Q3KMoves {
    using Block = BlockQ3_K;
    using Strip = StripQ3KSuperBlock;
    static constexpr size_t kColumns = 256;

    static size_t pair_bytes(int j) { return static_cast<size_t>(32 * (j / 8) + 16 * (j % 2)); }
    static size_t high_bytes(int j) { return static_cast<size_t>(16 * (j % 2)); }
    static int pair_shift(int j) { return 2 * (j % 8 / 2); }
    static int high_shift(int j) { return 4 * (j / 8) + j % 8 / 2; }

    // Sets `width` bits of `byte` from bit `bit` on to `value`.
    static void set_bits(uint8_t& byte, int bit, int width, int value) {
        const int mask = ((1 << width) - 1) << bit;
        byte = static_cast<uint8_t>((byte & ~mask) | (value << bit & mask));
    }

    // Four bytes as one word, so each step below moves a bit field of four elements at once
    // (byte i of the word is element i of a quad, in the file and in the strip alike).
    static uint32_t word(const uint8_t* bytes) {
        uint32_t value;
        std::memcpy(&value, bytes, sizeof value);
        return value;
    }
    static void set_word(uint8_t* bytes, uint32_t value) {
        std::memcpy(bytes, &value, sizeof value);
    }
    // Sets the bits `mask` (per byte, shifted by `bit`) of the word at `bytes` to `value`'s.
    static void set_fields(uint8_t* bytes, uint32_t mask, int bit, uint32_t value) {
        set_word(bytes, (word(bytes) & ~(mask << bit)) | (value & mask) << bit);
    }
    static constexpr uint32_t kPairs = 0x03030303, kBits = 0x01010101, kNibbles = 0x0f0f0f0f;

    static int top_bit(size_t m, int j) { return static_cast<int>(4 * m) + 2 * (j % 2); }

    static void repack(const Block& block, size_t m, Strip& strip) {
        strip.scales[m] = block.scale;
        // Rows 8-15 keep their high bits in the high nibbles of the bytes rows 0-7 use.
        const int high_nibble = static_cast<int>(4 * (m / 8));
        for (int j = 0; j < 16; ++j) {
            const int six_bits = unpack_scale_q3_k(j, block.scales) + 32;
            set_bits(strip.scales_low[j / 2][m], 4 * (j % 2), 4, six_bits & 0x0f);
            set_bits(strip.scales_high[j / 2][top_bit(m, j) / 8], top_bit(m, j) % 8, 2,
                     six_bits >> 4);
            uint32_t pairs = 0, high = 0;
            for (int q = 0; q < 4; ++q) {
                pairs |= (word(block.quants + pair_bytes(j) + 4 * q) >> pair_shift(j) & kPairs)
                         << (2 * q);
                high |= (word(block.high_bits + high_bytes(j) + 4 * q) >> high_shift(j) & kBits)
                        << q;
            }
            StripQ3KSubBlock& sub = strip.sub_blocks[j];
            set_word(sub.pairs + 4 * m, pairs);
            set_fields(sub.high + 4 * m % 32, kNibbles, high_nibble, high);
        }
    }

    static void unpack(const Strip& strip, size_t m, Block& block) {
        block.scale = strip.scales[m];
        const int high_nibble = static_cast<int>(4 * (m / 8));
        for (int j = 0; j < 16; ++j) {
            const int low = strip.scales_low[j / 2][m] >> (4 * (j % 2)) & 0x0f;
            const int top = strip.scales_high[j / 2][top_bit(m, j) / 8] >> (top_bit(m, j) % 8) & 3;
            // The file's packing, which unpack_scale_q3_k reads.
            set_bits(block.scales[j % 8], 4 * (j / 8), 4, low);
            set_bits(block.scales[8 + j % 4], 2 * (j / 4), 2, top);
            const StripQ3KSubBlock& sub = strip.sub_blocks[j];
            const uint32_t pairs = word(sub.pairs + 4 * m);
            const uint32_t high = word(sub.high + 4 * m % 32) >> high_nibble;
            for (int q = 0; q < 4; ++q) {
                set_fields(block.quants + pair_bytes(j) + 4 * q, kPairs, pair_shift(j),
                           pairs >> (2 * q));
                set_fields(block.high_bits + high_bytes(j) + 4 * q, kBits, high_shift(j),
                           high >> q);
            }
        }
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
        case kQ3_K:
            return visit(Q3KMoves{});
        default:
            throw std::invalid_argument("type " + std::to_string(type) + " has no strip layout");
    }
}

}  // namespace

bool has_strip_layout(int type) {
    return type == kQ4_0 || type == kIQ4_NL || type == kIQ4_XS || type == kQ3_K;
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
