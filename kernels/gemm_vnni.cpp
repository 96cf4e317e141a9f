// AVX-512 VNNI products of weight rows with a token panel (this file alone is compiled with
// AVX-512; it runs only after gemm_table() confirmed the CPU has it). Each 4-byte word of a
// weight block is broadcast to all 16 lanes and multiplied by dpbusd with the matching quad of
// 16 tokens, so a weight block is unpacked once for up to 64 tokens. Unsigned weight bytes meet
// signed activation bytes, as dpbusd wants; the offsets that makes (Q4_0's 8, Q8_0's 128) come
// back out through the panel's per-token sums.
#include <immintrin.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <type_traits>

#include "kernels/avx512_helpers.h"
#include "kernels/gemm_vnni.h"
#include "kernels/quant_blocks.h"

namespace hearth::kernels::vnni {
namespace {

constexpr size_t kTileRows = 16;    // rows whose partial sums live on the stack
constexpr size_t kChunkBlocks = 8;  // panel blocks per group kept in L1 across a tile's rows
constexpr int kMaxGroups = 4;       // groups of 16 tokens per pass over the weights
// The small fixed loops below are unrolled by pragma: only then do their vector arrays live in
// registers at -O2 (otherwise each weight word and accumulator goes through the stack).

inline float half(uint16_t bits) {
    return _cvtsh_ss(bits);
}

inline __m512i broadcast_word(const uint8_t* bytes) {
    int32_t word;
    std::memcpy(&word, bytes, 4);
    return _mm512_set1_epi32(word);
}

// A quad loaded into a register of its own. GCC otherwise folds the load into every row's
// dpbusd, reading each quad from L1 once per row; own_register's empty asm (which claims to change
// the register) stops that. The loads, not the dpbusd, were the limit: 10-20% faster in isolation.
inline __m512i quad(const PanelBlock& block, int index) {
    return own_register(_mm512_load_si512(block.quads[index]));
}

inline __m512i negated_sum(const PanelBlock& block, int shift) {
    return _mm512_sub_epi32(_mm512_setzero_si512(),
                            _mm512_slli_epi32(_mm512_load_si512(block.sum), shift));
}

// The products of one 32-element unit, R rows by G groups: quads 0-3 add into `first`, 4-7
// into `second` (the same array where the unit has one scale). Each panel quad is loaded once
// for all R rows, each weight word (word(r, q)) unpacked once for all G groups.
template <int R, int G, typename Words>
inline void multiply_quads(const Words& word, const PanelBlock* panel, size_t stride,
                           __m512i (&first)[R][G], __m512i (&second)[R][G]) {
#pragma GCC unroll 8
    for (int q = 0; q < 8; ++q) {
        __m512i weights[R];
#pragma GCC unroll 8
        for (int r = 0; r < R; ++r) weights[r] = word(r, q);
#pragma GCC unroll 8
        for (int g = 0; g < G; ++g) {
            const __m512i activations = quad(panel[g * stride], q);
#pragma GCC unroll 8
            for (int r = 0; r < R; ++r) {
                __m512i& sum = q < 4 ? first[r][g] : second[r][g];
                sum = _mm512_dpbusd_epi32(sum, weights[r], activations);
            }
        }
    }
}

// One 32-element unit (a *_0 block, a k-quant sub-block) of R rows times G groups. word(r, q)
// gives row r's unsigned weights for quad q; scale[r] the unit's weight scale;
// minimum[r] (k-quants) what multiplies the tokens' scaled sums; `shift` the log2 of the offset
// the unsigned weights carry (0: none).
template <int R, int G, typename Words>
inline void accumulate_unit(const Words& word, const __m512* scale, const __m512* minimum,
                            int shift, const PanelBlock* panel, size_t stride,
                            __m512 (&acc)[R][G]) {
    __m512i sums[R][G];
#pragma GCC unroll 8
    for (int g = 0; g < G; ++g) {
        const __m512i start =
            shift != 0 ? negated_sum(panel[g * stride], shift) : _mm512_setzero_si512();
#pragma GCC unroll 8
        for (int r = 0; r < R; ++r) sums[r][g] = start;
    }
    multiply_quads<R, G>(word, panel, stride, sums, sums);
#pragma GCC unroll 8
    for (int g = 0; g < G; ++g) {
        const __m512 token_scale = _mm512_load_ps(panel[g * stride].scale);
#pragma GCC unroll 8
        for (int r = 0; r < R; ++r) {
            acc[r][g] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(sums[r][g]),
                                        _mm512_mul_ps(scale[r], token_scale), acc[r][g]);
            if (minimum != nullptr) {
                acc[r][g] = _mm512_fnmadd_ps(
                    minimum[r], _mm512_load_ps(panel[g * stride].scaled_sum), acc[r][g]);
            }
        }
    }
}

// The same for formats with a scale per 16 elements: quads 0-3 and 4-7 are summed apart, each
// starting from its own half of the offset correction, and meet their own scales.
template <int R, int G, typename Words>
inline void accumulate_halves(const Words& word, const __m512* first_scale,
                              const __m512* second_scale, int shift, const PanelBlock* panel,
                              size_t stride, __m512 (&acc)[R][G]) {
    __m512i first[R][G], second[R][G];
#pragma GCC unroll 8
    for (int g = 0; g < G; ++g) {
        const PanelBlock& block = panel[g * stride];
        const __m512i half = _mm512_load_si512(block.first_half);
        const __m512i rest = _mm512_sub_epi32(_mm512_load_si512(block.sum), half);
        const __m512i first_start =
            _mm512_sub_epi32(_mm512_setzero_si512(), _mm512_slli_epi32(half, shift));
        const __m512i second_start =
            _mm512_sub_epi32(_mm512_setzero_si512(), _mm512_slli_epi32(rest, shift));
#pragma GCC unroll 8
        for (int r = 0; r < R; ++r) {
            first[r][g] = first_start;
            second[r][g] = second_start;
        }
    }
    multiply_quads<R, G>(word, panel, stride, first, second);
#pragma GCC unroll 8
    for (int g = 0; g < G; ++g) {
        const __m512 token_scale = _mm512_load_ps(panel[g * stride].scale);
#pragma GCC unroll 8
        for (int r = 0; r < R; ++r) {
            acc[r][g] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(first[r][g]),
                                        _mm512_mul_ps(first_scale[r], token_scale), acc[r][g]);
            acc[r][g] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(second[r][g]),
                                        _mm512_mul_ps(second_scale[r], token_scale), acc[r][g]);
        }
    }
}

// Nibble `high` (0 or 1) of four packed bytes, broadcast to every lane.
inline __m512i nibbles(const uint8_t* bytes, int high) {
    const __m512i word = broadcast_word(bytes);
    return _mm512_and_si512(high != 0 ? _mm512_srli_epi32(word, 4) : word, _mm512_set1_epi8(0x0f));
}

// A 32-element block's one scale: an f16 in the *_0 formats, a power of two in MXFP4.
template <typename Block>
inline float block_scale(const Block& block) {
    return half(block.scale);
}
inline float block_scale(const BlockMXFP4& block) {
    return mxfp4_scale(block.exponent);
}

// Each row's block `index` and its scale as a float.
template <typename Block, int R>
inline void locate(const std::byte* const* rows, size_t index, const Block* (&blocks)[R],
                   float (&scales)[R]) {
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) {
        blocks[r] = reinterpret_cast<const Block*>(rows[r]) + index;
        scales[r] = block_scale(*blocks[r]);
    }
}

// The *_0 formats: one f16 scale a block; Words::word(block, q) gives quad q's unsigned weights
// (elements 4q..4q+3), offset by 2^kShift.
template <typename Block, typename Words>
struct ZeroKernel {
    static constexpr size_t kPanelBlocks = 1;
    static constexpr size_t kBlockBytes = sizeof(Block);
    template <int R, int G>
    static void block(const std::byte* const* rows, size_t index, const PanelBlock* panel,
                      size_t stride, __m512 (&acc)[R][G]) {
        const Block* blocks[R];
        float d[R];
        locate(rows, index, blocks, d);
        __m512 scale[R];
#pragma GCC unroll 8
        for (int r = 0; r < R; ++r) scale[r] = _mm512_set1_ps(d[r]);
        const auto word = [&](int r, int q) { return Words::word(*blocks[r], q); };
        accumulate_unit<R, G>(word, scale, nullptr, Words::kShift, panel, stride, acc);
    }
};

// Q4_0: elements 4q.. are the low nibbles of bytes 4q.. for q < 4, the high nibbles of bytes
// 4(q-4).. after that; nibbles are the values + 8.
struct Q4_0Words {
    static constexpr int kShift = 3;
    static __m512i word(const BlockQ4_0& block, int q) {
        return nibbles(block.quants + 4 * (q % 4), q / 4);
    }
};

// Q8_0: signed bytes made unsigned by adding 128 (flipping the top bit).
struct Q8_0Words {
    static constexpr int kShift = 7;
    static __m512i word(const BlockQ8_0& block, int q) {
        return _mm512_xor_si512(
            broadcast_word(reinterpret_cast<const uint8_t*>(block.quants) + 4 * q),
            _mm512_set1_epi8(static_cast<char>(0x80)));
    }
};

// MXFP4: Q4_0's nibbles, each looked up (a byte shuffle per 128-bit lane) in the doubled E2M1
// grid plus 16, so the values (4..28) are unsigned as dpbusd wants.
struct Mxfp4Words {
    static constexpr int kShift = 4;
    static __m512i word(const BlockMXFP4& block, int q) {
        static constexpr int8_t kGrid[16] = {16, 17, 18, 19, 20, 22, 24, 28,
                                             16, 15, 14, 13, 12, 10, 8,  4};
        const __m512i grid =
            _mm512_broadcast_i32x4(_mm_loadu_si128(reinterpret_cast<const __m128i*>(kGrid)));
        return _mm512_shuffle_epi8(grid, nibbles(block.quants + 4 * (q % 4), q / 4));
    }
};

// IQ4_NL's and IQ4_XS's nibbles looked up (a byte shuffle per 128-bit lane) in the non-linear
// grid plus 128, so the values (1..241) are unsigned as dpbusd wants.
inline __m512i iq4_word(const uint8_t* quants, int q) {
    static constexpr auto kGrid = [] {
        std::array<uint8_t, 16> grid{};
        for (int i = 0; i < 16; ++i) grid[i] = static_cast<uint8_t>(kIq4Values[i] + 128);
        return grid;
    }();
    const __m512i grid =
        _mm512_broadcast_i32x4(_mm_loadu_si128(reinterpret_cast<const __m128i*>(kGrid.data())));
    return _mm512_shuffle_epi8(grid, nibbles(quants + 4 * (q % 4), q / 4));
}

// IQ4_NL: Q4_0's block, its nibbles standing for grid values.
struct Iq4NlWords {
    static constexpr int kShift = 7;
    static __m512i word(const BlockIQ4_NL& block, int q) { return iq4_word(block.quants, q); }
};

// Q5_0: Q4_0's nibbles with each element's fifth bit (bit i of high_bits for element i) put
// back as bit 4 of its byte; the values + 16.
struct Q5_0Words {
    static constexpr int kShift = 4;
    static __m512i word(const BlockQ5_0& block, int q) {
        // Four high bits become bit 4 of four bytes: nibble b of the mask, spread out.
        static constexpr auto kSpread = [] {
            std::array<uint32_t, 16> spread{};
            for (uint32_t bits = 0; bits < 16; ++bits) {
                for (uint32_t k = 0; k < 4; ++k) spread[bits] |= ((bits >> k) & 1u) << (8 * k + 4);
            }
            return spread;
        }();
        uint32_t high;
        std::memcpy(&high, block.high_bits, 4);
        const uint32_t fifth = kSpread[(high >> (4 * q)) & 0x0fu];
        return _mm512_or_si512(nibbles(block.quants + 4 * (q % 4), q / 4),
                               _mm512_set1_epi32(static_cast<int>(fifth)));
    }
};

using Q4_0Kernel = ZeroKernel<BlockQ4_0, Q4_0Words>;
using Q5_0Kernel = ZeroKernel<BlockQ5_0, Q5_0Words>;
using Q8_0Kernel = ZeroKernel<BlockQ8_0, Q8_0Words>;
using Mxfp4Kernel = ZeroKernel<BlockMXFP4, Mxfp4Words>;
using Iq4NlKernel = ZeroKernel<BlockIQ4_NL, Iq4NlWords>;

// Sub-block j of an IQ4_XS super-block: IQ4_NL's nibble layout in bytes 16j..16j+16, with a
// 6-bit scale (32 below it) times the super-block's f16; each sub-block meets its own panel block.
struct Iq4XsKernel {
    static constexpr size_t kPanelBlocks = 8;
    static constexpr size_t kBlockBytes = sizeof(BlockIQ4_XS);
    template <int R, int G>
    static void block(const std::byte* const* rows, size_t index, const PanelBlock* panel,
                      size_t stride, __m512 (&acc)[R][G]) {
        const BlockIQ4_XS* blocks[R];
        float d[R];
        locate(rows, index, blocks, d);
        for (int j = 0; j < 8; ++j) {
            __m512 scale[R];
#pragma GCC unroll 8
            for (int r = 0; r < R; ++r) {
                scale[r] =
                    _mm512_set1_ps(d[r] * static_cast<float>(unpack_scale_iq4_xs(j, *blocks[r])));
            }
            const auto word = [&](int r, int q) { return iq4_word(blocks[r]->quants + 16 * j, q); };
            accumulate_unit<R, G>(word, scale, nullptr, Iq4NlWords::kShift, panel + j, stride, acc);
        }
    }
};

// Sub-block j of a Q4_K or Q5_K super-block: the low (even j) or high (odd j) nibbles of bytes
// 32(j/2)..+32, with its own 6-bit scale and minimum; each sub-block meets its own panel block.
// Q5_K's fifth bits are bit j of the high bytes, one per element, moved to bit 4.
template <typename Block>
struct KQuantKernel {
    static constexpr size_t kPanelBlocks = 8;
    static constexpr size_t kBlockBytes = sizeof(Block);
    static __m512i word(const Block& block, int j, int q) {
        const __m512i values = nibbles(block.quants + 32 * (j / 2) + 4 * q, j % 2);
        if constexpr (std::is_same_v<Block, BlockQ5_K>) {
            const __m512i high = broadcast_word(block.high_bits + 4 * q);
            const __m512i placed =
                j < 4 ? _mm512_slli_epi32(high, 4 - j) : _mm512_srli_epi32(high, j - 4);
            // values | (placed & 0x10)
            return _mm512_ternarylogic_epi32(values, placed, _mm512_set1_epi8(0x10), 0xf8);
        } else {
            return values;
        }
    }
    template <int R, int G>
    static void block(const std::byte* const* rows, size_t index, const PanelBlock* panel,
                      size_t stride, __m512 (&acc)[R][G]) {
        const Block* blocks[R];
        float d[R], dmin[R];
        locate(rows, index, blocks, d);
#pragma GCC unroll 8
        for (int r = 0; r < R; ++r) dmin[r] = half(blocks[r]->minimum);
        for (int j = 0; j < 8; ++j) {
            __m512 scale[R], minimum[R];
#pragma GCC unroll 8
            for (int r = 0; r < R; ++r) {
                uint8_t sub_scale, sub_minimum;
                unpack_scale_min_k4(j, blocks[r]->scales, sub_scale, sub_minimum);
                scale[r] = _mm512_set1_ps(d[r] * sub_scale);
                minimum[r] = _mm512_set1_ps(dmin[r] * sub_minimum);
            }
            const auto unit_word = [&](int r, int q) { return word(*blocks[r], j, q); };
            accumulate_unit<R, G>(unit_word, scale, minimum, 0, panel + j, stride, acc);
        }
    }
};

// The formats with a signed scale per 16 elements: unit u of a super-block is elements
// 32u..32u+31, with scales 2u and 2u + 1. Words gives the Block, its values' offset 2^kShift,
// scale(block, i) and word(block, unit, q), the unit's quad q of unsigned values.
template <typename Words>
struct HalvesKernel {
    static constexpr size_t kPanelBlocks = 8;
    static constexpr size_t kBlockBytes = sizeof(typename Words::Block);
    template <int R, int G>
    static void block(const std::byte* const* rows, size_t index, const PanelBlock* panel,
                      size_t stride, __m512 (&acc)[R][G]) {
        const typename Words::Block* blocks[R];
        float d[R];
        locate(rows, index, blocks, d);
        for (int unit = 0; unit < 8; ++unit) {
            __m512 first_scale[R], second_scale[R];
#pragma GCC unroll 8
            for (int r = 0; r < R; ++r) {
                first_scale[r] =
                    _mm512_set1_ps(d[r] * static_cast<float>(Words::scale(*blocks[r], 2 * unit)));
                second_scale[r] = _mm512_set1_ps(
                    d[r] * static_cast<float>(Words::scale(*blocks[r], 2 * unit + 1)));
            }
            const auto word = [&](int r, int q) { return Words::word(*blocks[r], unit, q); };
            accumulate_halves<R, G>(word, first_scale, second_scale, Words::kShift, panel + unit,
                                    stride, acc);
        }
    }
};

// Q6_K (see gemm_scalar.cpp): unit u is a nibble of the low-bit bytes with a bit pair of the
// high-bit bytes as bits 4-5; values offset by 32.
struct Q6_KWords {
    using Block = BlockQ6_K;
    static constexpr int kShift = 5;
    static int scale(const BlockQ6_K& block, int index) { return block.scales[index]; }
    static __m512i word(const BlockQ6_K& block, int unit, int q) {
        const int part = unit / 4, k = unit % 4;
        const __m512i low = nibbles(block.low_bits + 64 * part + 32 * (k % 2) + 4 * q, k / 2);
        const __m512i bits = broadcast_word(block.high_bits + 32 * part + 4 * q);
        const __m512i placed =
            k < 3 ? _mm512_slli_epi32(bits, 4 - 2 * k) : _mm512_srli_epi32(bits, 2);
        return _mm512_or_si512(low, _mm512_and_si512(placed, _mm512_set1_epi8(0x30)));
    }
};

// Q3_K: unit u is bit pair u % 4 of quant bytes 32(u/4)..+32 and bit u of the 32 high-bit
// bytes as bit 2 (the element is 4 lower without it); values (0..7) offset by 4.
struct Q3_KWords {
    using Block = BlockQ3_K;
    static constexpr int kShift = 2;
    static int scale(const BlockQ3_K& block, int index) {
        return unpack_scale_q3_k(index, block.scales);
    }
    static __m512i word(const BlockQ3_K& block, int unit, int q) {
        const __m512i pairs = _mm512_srli_epi32(
            broadcast_word(block.quants + 32 * (unit / 4) + 4 * q), 2 * (unit % 4));
        const __m512i high = broadcast_word(block.high_bits + 4 * q);
        const __m512i placed =
            unit < 2 ? _mm512_slli_epi32(high, 2 - unit) : _mm512_srli_epi32(high, unit - 2);
        return _mm512_or_si512(_mm512_and_si512(pairs, _mm512_set1_epi8(0x03)),
                               _mm512_and_si512(placed, _mm512_set1_epi8(0x04)));
    }
};

using Q6_KKernel = HalvesKernel<Q6_KWords>;
using Q3_KKernel = HalvesKernel<Q3_KWords>;

// R rows of a tile over blocks [begin, end), their sums carried in `partial` between chunks.
template <typename Kernel, int R, int G>
void rows_chunk(const std::byte* const* rows, size_t begin, size_t end, const PanelBlock* panel,
                size_t stride, float (*partial)[G][kPanelTokens]) {
    __m512 acc[R][G];
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) {
#pragma GCC unroll 8
        for (int g = 0; g < G; ++g) {
            acc[r][g] = begin == 0 ? _mm512_setzero_ps() : _mm512_load_ps(partial[r][g]);
        }
    }
    // The rows' next chunk comes from memory while this one computes: a tile's rows are
    // separate short streams the hardware prefetcher does not follow.
    const size_t chunk_bytes = (end - begin) * Kernel::kBlockBytes;
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) {
        const std::byte* next = rows[r] + end * Kernel::kBlockBytes;
        for (size_t line = 0; line < chunk_bytes; line += 64) {
            _mm_prefetch(reinterpret_cast<const char*>(next + line), _MM_HINT_T0);
        }
    }
    for (size_t b = begin; b < end; ++b) {
        Kernel::template block<R, G>(rows, b, panel + b * Kernel::kPanelBlocks, stride, acc);
    }
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) {
#pragma GCC unroll 8
        for (int g = 0; g < G; ++g) _mm512_store_ps(partial[r][g], acc[r][g]);
    }
}

// One pass of up to four groups over all rows: tiles of rows, each walked chunk by chunk so the
// chunk's panel blocks stay in L1 while every row of the tile uses them, two rows at a time.
template <typename Kernel, int G>
void pass(const std::byte* weights, size_t row_bytes, size_t rows, const PanelBlock* panel,
          size_t panel_row, size_t tokens, float* out, size_t out_stride) {
    const size_t blocks = panel_row / Kernel::kPanelBlocks;
    const size_t chunk = std::max<size_t>(1, kChunkBlocks / Kernel::kPanelBlocks);
    alignas(64) float partial[kTileRows][G][kPanelTokens];
    for (size_t first = 0; first < rows; first += kTileRows) {
        const size_t tile = std::min(kTileRows, rows - first);
        for (size_t begin = 0; begin < blocks; begin += chunk) {
            const size_t end = std::min(blocks, begin + chunk);
            for (size_t r = 0; r < tile; r += 2) {
                const std::byte* pair[2] = {weights + (first + r) * row_bytes,
                                            weights + (first + r + 1) * row_bytes};
                if (r + 1 < tile) {
                    rows_chunk<Kernel, 2, G>(pair, begin, end, panel, panel_row, partial + r);
                } else {
                    rows_chunk<Kernel, 1, G>(pair, begin, end, panel, panel_row, partial + r);
                }
            }
        }
        for (size_t t = 0; t < tokens; ++t) {
            float* destination = out + t * out_stride + first;
            for (size_t r = 0; r < tile; ++r) {
                destination[r] = partial[r][t / kPanelTokens][t % kPanelTokens];
            }
        }
    }
}

template <typename Kernel>
void gemm(const void* weights, size_t row_bytes, size_t rows, const PanelBlock* panel,
          size_t tokens, size_t columns, float* out, size_t out_stride) {
    const size_t panel_row = columns / 32;
    const size_t groups = panel_groups(tokens);
    const auto* bytes = static_cast<const std::byte*>(weights);
    for (size_t first = 0; first < groups; first += kMaxGroups) {
        const size_t count = std::min<size_t>(kMaxGroups, groups - first);
        const size_t done = first * kPanelTokens;
        const size_t pass_tokens = std::min(tokens - done, count * kPanelTokens);
        const PanelBlock* pass_panel = panel + first * panel_row;
        float* pass_out = out + done * out_stride;
        switch (count) {
            case 1:
                pass<Kernel, 1>(bytes, row_bytes, rows, pass_panel, panel_row, pass_tokens,
                                pass_out, out_stride);
                break;
            case 2:
                pass<Kernel, 2>(bytes, row_bytes, rows, pass_panel, panel_row, pass_tokens,
                                pass_out, out_stride);
                break;
            case 3:
                pass<Kernel, 3>(bytes, row_bytes, rows, pass_panel, panel_row, pass_tokens,
                                pass_out, out_stride);
                break;
            default:
                pass<Kernel, 4>(bytes, row_bytes, rows, pass_panel, panel_row, pass_tokens,
                                pass_out, out_stride);
                break;
        }
    }
}

// quantize_row_q8 for 16 tokens at once, bit for bit: the same maximum, the same division and
// reciprocal, a round-to-nearest-even of the same product.
void pack_block(const float* x, size_t tokens_left, size_t columns, PanelBlock& out) {
    std::memset(&out, 0, sizeof out);
    alignas(64) int8_t quants[kPanelTokens][32];
    for (size_t lane = 0; lane < std::min(kPanelTokens, tokens_left); ++lane) {
        const float* values = x + lane * columns;
        const __m512 first = _mm512_loadu_ps(values), second = _mm512_loadu_ps(values + 16);
        const float largest =
            _mm512_reduce_max_ps(_mm512_max_ps(_mm512_abs_ps(first), _mm512_abs_ps(second)));
        const float scale = largest / 127.0f;
        const __m512 inverse = _mm512_set1_ps(scale != 0.0f ? 1.0f / scale : 0.0f);
        const auto quantise = [&](__m512 v) {
            return _mm512_cvtps_epi32(_mm512_roundscale_ps(
                _mm512_mul_ps(v, inverse), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
        };
        const __m512i low = quantise(first), high = quantise(second);
        _mm_store_si128(reinterpret_cast<__m128i*>(quants[lane]), _mm512_cvtepi32_epi8(low));
        _mm_store_si128(reinterpret_cast<__m128i*>(quants[lane] + 16), _mm512_cvtepi32_epi8(high));
        const int32_t first_half = _mm512_reduce_add_epi32(low);
        const int32_t sum = first_half + _mm512_reduce_add_epi32(high);
        out.scale[lane] = scale;
        out.sum[lane] = sum;
        out.first_half[lane] = first_half;
        out.scaled_sum[lane] = scale * static_cast<float>(sum);
#pragma GCC unroll 8
        for (size_t q = 0; q < kPanelQuads; ++q)
            std::memcpy(out.quads[q][lane], quants[lane] + 4 * q, 4);
    }
}

}  // namespace

void pack(const float* x, size_t tokens, size_t columns, PanelBlock* panel, size_t first,
          size_t last) {
    const size_t blocks = columns / 32;
    for (size_t index = first; index < last; ++index) {
        const size_t group = index / blocks, block = index % blocks;
        const size_t token = group * kPanelTokens;
        pack_block(x + token * columns + block * 32, tokens - token, columns, panel[index]);
    }
}

void gemm_q4_0(const void* weights, size_t row_bytes, size_t rows, const PanelBlock* panel,
               size_t tokens, size_t columns, float* out, size_t out_stride) {
    gemm<Q4_0Kernel>(weights, row_bytes, rows, panel, tokens, columns, out, out_stride);
}

void gemm_q5_0(const void* weights, size_t row_bytes, size_t rows, const PanelBlock* panel,
               size_t tokens, size_t columns, float* out, size_t out_stride) {
    gemm<Q5_0Kernel>(weights, row_bytes, rows, panel, tokens, columns, out, out_stride);
}

void gemm_q8_0(const void* weights, size_t row_bytes, size_t rows, const PanelBlock* panel,
               size_t tokens, size_t columns, float* out, size_t out_stride) {
    gemm<Q8_0Kernel>(weights, row_bytes, rows, panel, tokens, columns, out, out_stride);
}

void gemm_mxfp4(const void* weights, size_t row_bytes, size_t rows, const PanelBlock* panel,
                size_t tokens, size_t columns, float* out, size_t out_stride) {
    gemm<Mxfp4Kernel>(weights, row_bytes, rows, panel, tokens, columns, out, out_stride);
}

void gemm_iq4_nl(const void* weights, size_t row_bytes, size_t rows, const PanelBlock* panel,
                 size_t tokens, size_t columns, float* out, size_t out_stride) {
    gemm<Iq4NlKernel>(weights, row_bytes, rows, panel, tokens, columns, out, out_stride);
}

void gemm_iq4_xs(const void* weights, size_t row_bytes, size_t rows, const PanelBlock* panel,
                 size_t tokens, size_t columns, float* out, size_t out_stride) {
    gemm<Iq4XsKernel>(weights, row_bytes, rows, panel, tokens, columns, out, out_stride);
}

void gemm_q3_k(const void* weights, size_t row_bytes, size_t rows, const PanelBlock* panel,
               size_t tokens, size_t columns, float* out, size_t out_stride) {
    gemm<Q3_KKernel>(weights, row_bytes, rows, panel, tokens, columns, out, out_stride);
}

void gemm_q4_k(const void* weights, size_t row_bytes, size_t rows, const PanelBlock* panel,
               size_t tokens, size_t columns, float* out, size_t out_stride) {
    gemm<KQuantKernel<BlockQ4_K>>(weights, row_bytes, rows, panel, tokens, columns, out,
                                  out_stride);
}

void gemm_q5_k(const void* weights, size_t row_bytes, size_t rows, const PanelBlock* panel,
               size_t tokens, size_t columns, float* out, size_t out_stride) {
    gemm<KQuantKernel<BlockQ5_K>>(weights, row_bytes, rows, panel, tokens, columns, out,
                                  out_stride);
}

void gemm_q6_k(const void* weights, size_t row_bytes, size_t rows, const PanelBlock* panel,
               size_t tokens, size_t columns, float* out, size_t out_stride) {
    gemm<Q6_KKernel>(weights, row_bytes, rows, panel, tokens, columns, out, out_stride);
}

}  // namespace hearth::kernels::vnni
