// The AVX-512 VNNI kernels over strips (strips.h), compiled with AVX-512: the strip's sixteen rows
// in the sixteen 32-bit lanes. Q3_K's kernel is at the end. Per 32-element block the 256 nibble
// bytes load as four vectors whose low and high nibbles are the eight quads; each token then
// broadcasts four of its activation bytes per quad: 8 vpdpbusd, the values' offset taken out
// exactly, one conversion, one scale product and one FMA for 512 multiply-adds. The row layout's
// kernel (dot_grid_vnni.cpp) spends the same 8 vpdpbusd but six float operations and the byte
// permutes that gather a row's blocks into lanes. One thread, Q4_0 5632 x 2048, µs a token, strips
// against rows: one token 219 against 231, four 68.9 against 94.4, eight 56.4 against 78.6.
//
// Q4_0's nibbles are its unsigned values; IQ4_NL's and IQ4_XS's index a grid of signed values,
// looked up with one vpermb per quad vector in the grid biased by 128 (so every value is
// unsigned, as vpdpbusd wants them) and the bias taken back out with the activations' offset.
#include <immintrin.h>

#include <array>
#include <cstddef>
#include <cstring>

#include "kernels/activation_blocks.h"
#include "kernels/avx512_helpers.h"
#include "kernels/dot_variants.h"
#include "kernels/quant_blocks.h"
#include "kernels/simd_helpers.h"
#include "kernels/strip_helpers.h"
#include "kernels/strips.h"

namespace hearth::kernels::vnni {
namespace {

constexpr int kPassTokens = 8;  // tokens sharing a block's unpacking

[[gnu::always_inline]] inline __m512i broadcast_word(const int8_t* quants, int q) {
    int32_t word;
    std::memcpy(&word, quants + 4 * q, sizeof word);
    return _mm512_set1_epi32(word);
}

// One token's sixteen integer dots with a block, the offset (8 times the activations' sum,
// shifted left by Shift) taken out: two chains of four, so the products do not wait on each
// other's latency.
template <int Shift>
[[gnu::always_inline]] inline __m512i block_dot(const Quads& quads, const BlockQ8Offset& y) {
    __m512i low = _mm512_set1_epi32(-(y.offset << Shift)), high = _mm512_setzero_si512();
#pragma GCC unroll 4
    for (int q = 0; q < 4; ++q) {
        low = _mm512_dpbusd_epi32(low, quads.quad[q], broadcast_word(y.quants, q));
        high = _mm512_dpbusd_epi32(high, quads.quad[q + 4], broadcast_word(y.quants, q + 4));
    }
    return _mm512_add_epi32(low, high);
}

// IQ4_NL's and IQ4_XS's values plus 128 (8 << 4, the offset shifted by 4), 1..241.
struct GridValues {
    static constexpr auto kTable = biased_grid(kIq4Values, 8 << 4);
    __m512i grid = _mm512_loadu_si512(kTable.data());
    [[gnu::always_inline]] __m512i operator()(__m512i bytes) const {
        return _mm512_permutexvar_epi8(bytes, grid);
    }
};

// IQ4_XS's prefetches, 1 KiB ahead, one line per turn of a loop that is not unrolled. Straight
// prefetches (prefetch_bytes_ahead, unrolled, 2 KiB ahead) left TinyLlama IQ4_XS decode from DRAM
// (2 threads, every IQ4_XS product in strips) at 37-39 tok/s, below the row layout's 42-44: GCC
// gathered a super-block's 34 prefetches into one burst, and the samples piled up on them. The
// same prefetches in a loop ran at 46-47 tok/s, and 1 KiB ahead at 47-48 (2 KiB ahead 46-47, 512
// bytes 47-48). Rolling the shared helper the same way changed nothing for the other formats.
[[gnu::always_inline]] inline void prefetch_lines_ahead(const void* at, size_t bytes) {
    constexpr size_t kDistance = 1024;
    const char* ahead = static_cast<const char*>(at) + kDistance;
#pragma GCC unroll 1
    for (size_t line = 0; line < bytes; line += 64) _mm_prefetch(ahead + line, _MM_HINT_T0);
}

// A format's strip: its blocks of kColumns elements, and for each its 32-element sub-blocks in
// order with their sixteen rows' weight scales, handed to add(sub-block, quads, scales).

// Q4_0 and IQ4_NL: one 32-element block, its f16 scales.
template <typename Values, int Shift>
struct BlockStrips {
    using Block = StripBlock;
    static constexpr size_t kColumns = 32;
    static constexpr int kShift = Shift;
    Values values;

    template <typename Add>
    [[gnu::always_inline]] void read(const Block& block, const Add& add) const {
        prefetch_ahead(&block);
        add(0, unpack(block.nibbles, values), weight_scales(block.scales));
    }
};

using Q4_0Strips = BlockStrips<NibbleValues, 0>;
using Iq4NlStrips = BlockStrips<GridValues, 4>;

// IQ4_XS: eight sub-blocks of IQ4_NL's values, each row's scale d times its sub-block's 6-bit
// scale less 32, which is exact in a float.
struct Iq4XsStrips {
    using Block = StripSuperBlock;
    static constexpr size_t kColumns = 256;
    static constexpr int kShift = 4;
    GridValues values;

    template <typename Add>
    [[gnu::always_inline]] void read(const Block& block, const Add& add) const {
        prefetch_lines_ahead(&block, offsetof(Block, nibbles));
        const __m512 d = weight_scales(block.scales);
        const __m512i high = _mm512_cvtepu16_epi32(
            _mm256_loadu_si256(reinterpret_cast<const __m256i*>(block.scales_high)));
        const __m512i low = _mm512_loadu_si512(block.scales_low);
        const __m512i nibble = _mm512_set1_epi32(0x0f), pair = _mm512_set1_epi32(3);
#pragma GCC unroll 8
        for (int j = 0; j < 8; ++j) {
            prefetch_lines_ahead(&block.nibbles[j], sizeof block.nibbles[j]);
            const __m512i six_bits = _mm512_or_si512(
                _mm512_and_si512(_mm512_srli_epi32(low, 4 * j), nibble),
                _mm512_slli_epi32(_mm512_and_si512(_mm512_srli_epi32(high, 2 * j), pair), 4));
            const __m512 scales = _mm512_mul_ps(
                d, _mm512_cvtepi32_ps(_mm512_sub_epi32(six_bits, _mm512_set1_epi32(32))));
            add(j, unpack(block.nibbles[j], values), scales);
        }
    }
};

// N tokens against a strip of Format.
template <typename Format>
struct Passes {
    template <int N>
    struct StripPass {
        static void run(const void* strip, size_t rows, const std::byte* activations, size_t stride,
                        float* out, size_t out_stride, size_t columns);
    };
};

template <typename Format>
template <int N>
void Passes<Format>::StripPass<N>::run(const void* strip, size_t rows, const std::byte* activations,
                                       size_t stride, float* out, size_t out_stride,
                                       size_t columns) {
    constexpr size_t kSubBlocks = Format::kColumns / 32;
    const Format format;
    const auto* blocks = static_cast<const typename Format::Block*>(strip);
    StripSums<N> pass(activations, stride);
    // A strip is one contiguous stream, but the hardware prefetchers alone left decode from DRAM
    // (TinyLlama, every Q4_0 matrix in strips, 2 threads) at 36-39 tok/s against the row layout's
    // 41; fetching 2 KiB ahead (in read) brought it to 39-41.
    for (size_t b = 0; b < columns / Format::kColumns; ++b) {
        format.read(blocks[b], [&](size_t sub, const Quads& quads, __m512 scales) {
            const size_t block = b * kSubBlocks + sub;
#pragma GCC unroll 8
            for (int t = 0; t < N; ++t) {
                pass.add(t, block, block_dot<Format::kShift>(quads, pass.tokens[t][block]), scales);
            }
        });
    }
    pass.store(rows, out, out_stride);
}

// Q3_K: per 16-element sub-block the four quads' unsigned values (the bit pair, plus 4 with the
// high bit: the pair shifted down, the high bit moved to bit 2 by one GF(2) affine byte transform,
// one ternary-logic merge), four vpdpbusd a token into the sub-block's dot. A pair of sub-blocks'
// dots (each within 16 bits: 16 values of at most 7 times activations of at most 127) share one
// vpdpwssd with the rows' two scales less 32, and one more takes the values' offset back out: the
// activations' two sums per 16 times -4 times the same scales. The super-block's integer is then
// exact, as scalar::dot_q3_k_fma's, and meets the scales in one FMA. One thread, 5632 x 2048
// from L3, one token: 214 µs against the row kernel's (dot_vnni.cpp) 301; TinyLlama
// Q3_K_M pp512 228-236 tok/s against 167-179 in the file layout. Decode from DRAM is bound by
// reading the bytes either way: with each thread streaming its own slice (thread_pool.cpp),
// tg128 42.1-42.7 against 41.2-42.0 in the file layout (interleaved, the probe at 26 GB/s), and
// neither prefetching 0.5 to 8 KiB ahead instead of 1 KiB nor a cheaper unpacking of the scales
// moved it.
namespace q3_k {

// Quad q's high bits: bit q of the broadcast high bytes in the low 256 bits, bit 4 + q in the high.
__m512i high_bit_matrix(int q) {
    return move_bit(q, 4 + q, 2);
}

// vpmultishiftqb's bit offsets that bring row m's top pair for sub-block 2k + h (bits 4m + 2h of
// the broadcast word) to bits 4-5 of word 2m + h. An offset below zero wraps around the 64-bit
// lane, as the instruction does; the odd bytes are masked away after.
constexpr std::array<uint8_t, 64> top_pair_offsets() {
    std::array<uint8_t, 64> offsets{};
    for (int word = 0; word < 32; ++word) {
        const int m = word / 2, h = word % 2;
        offsets[2 * word] = static_cast<uint8_t>((4 * m + 2 * h - 4) & 63);
    }
    return offsets;
}

// Sub-blocks 2k and 2k + 1's scales as the products take them: word 2m + h is row m's scale of
// sub-block 2k + h less 32, and in `minus_four` -4 times that.
struct PairScales {
    __m512i scales, minus_four;
};

[[gnu::always_inline]] inline PairScales pair_scales(const StripQ3KSuperBlock& block, int k) {
    static constexpr std::array<uint8_t, 64> kTopOffsets = top_pair_offsets();
    // Dword m is row m's byte of low nibbles: its low nibble stays in word 2m, and the byte
    // shifted left by 12 puts the high one in word 2m + 1.
    const __m512i bytes = _mm512_cvtepu8_epi32(
        _mm_loadu_si128(reinterpret_cast<const __m128i*>(block.scales_low[k])));
    const __m512i lows = _mm512_ternarylogic_epi32(bytes, _mm512_slli_epi32(bytes, 12),
                                                   _mm512_set1_epi32(0x000f000f), 0xa8);
    int64_t top_pairs;
    std::memcpy(&top_pairs, block.scales_high[k], sizeof top_pairs);
    const __m512i tops = _mm512_multishift_epi64_epi8(_mm512_loadu_si512(kTopOffsets.data()),
                                                      _mm512_set1_epi64(top_pairs));
    // lows | (tops & 0x30)
    const __m512i six_bits = _mm512_ternarylogic_epi32(lows, tops, _mm512_set1_epi16(0x30), 0xf8);
    return {_mm512_sub_epi16(six_bits, _mm512_set1_epi16(32)),
            _mm512_sub_epi16(_mm512_set1_epi16(128), _mm512_slli_epi16(six_bits, 2))};
}

// A sub-block's four quads of unsigned values.
[[gnu::always_inline]] inline void unpack(const StripQ3KSubBlock& sub, const __m512i (&matrices)[4],
                                          __m512i (&quads)[4]) {
    const __m512i pairs = _mm512_loadu_si512(sub.pairs);
    const __m512i high =
        _mm512_broadcast_i64x4(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(sub.high)));
    const __m512i pair_mask = _mm512_set1_epi8(0x03);
#pragma GCC unroll 4
    for (int q = 0; q < 4; ++q) {
        const __m512i shifted = q == 0 ? pairs : _mm512_srli_epi16(pairs, 2 * q);
        const __m512i placed = _mm512_gf2p8affine_epi64_epi8(high, matrices[q], 0);
        // (pairs & 3) | placed
        quads[q] = _mm512_ternarylogic_epi32(shifted, placed, pair_mask, 0xec);
    }
}

// One token's sixteen dots with a sub-block's quads, its activations at `quants`.
[[gnu::always_inline]] inline __m512i sub_block_dot(const __m512i (&quads)[4],
                                                    const int8_t* quants) {
    __m512i dot = _mm512_setzero_si512();
#pragma GCC unroll 4
    for (int q = 0; q < 4; ++q) dot = _mm512_dpbusd_epi32(dot, quads[q], broadcast_word(quants, q));
    return dot;
}

template <int N>
struct Pass {
    static void run(const void* strip, size_t rows, const std::byte* activations, size_t stride,
                    float* out, size_t out_stride, size_t columns) {
        const auto* blocks = static_cast<const StripQ3KSuperBlock*>(strip);
        const __m512i matrices[4] = {high_bit_matrix(0), high_bit_matrix(1), high_bit_matrix(2),
                                     high_bit_matrix(3)};
        StripSums<N, BlockQ8K> pass(activations, stride);
        for (size_t b = 0; b < columns / 256; ++b) {
            const StripQ3KSuperBlock& block = blocks[b];
            prefetch_lines_ahead(&block, offsetof(StripQ3KSuperBlock, sub_blocks));
            __m512i dots[N];
            for (int t = 0; t < N; ++t) dots[t] = _mm512_setzero_si512();
#pragma GCC unroll 1
            for (int k = 0; k < 8; ++k) {
                prefetch_lines_ahead(&block.sub_blocks[2 * k], 2 * sizeof(StripQ3KSubBlock));
                const PairScales scales = pair_scales(block, k);
                __m512i first[4], second[4];
                unpack(block.sub_blocks[2 * k], matrices, first);
                unpack(block.sub_blocks[2 * k + 1], matrices, second);
#pragma GCC unroll 8
                for (int t = 0; t < N; ++t) {
                    const BlockQ8K& y = pass.tokens[t][b];
                    const __m512i low = sub_block_dot(first, y.quants + 32 * k);
                    const __m512i high = sub_block_dot(second, y.quants + 32 * k + 16);
                    // Word 2m: row m's dot with sub-block 2k; word 2m + 1: with 2k + 1.
                    const __m512i words =
                        _mm512_mask_blend_epi16(0xaaaaaaaa, low, _mm512_slli_epi32(high, 16));
                    int32_t sums;
                    std::memcpy(&sums, y.sums + 2 * k, sizeof sums);
                    dots[t] = _mm512_dpwssd_epi32(dots[t], words, scales.scales);
                    dots[t] =
                        _mm512_dpwssd_epi32(dots[t], _mm512_set1_epi32(sums), scales.minus_four);
                }
            }
            const __m512 d = weight_scales(block.scales);
            for (int t = 0; t < N; ++t) pass.add(t, b, dots[t], d);
        }
        pass.store(rows, out, out_stride);
    }
};

}  // namespace q3_k

template <typename Format>
void format_strip_rows(const void* strip, size_t rows, const void* activations,
                       size_t activation_stride, size_t tokens, float* out, size_t out_stride,
                       size_t count) {
    strip_passes<kPassTokens, Passes<Format>::template StripPass>(
        strip, rows, activations, activation_stride, tokens, out, out_stride, count);
}

}  // namespace

StripRowsFunction strip_rows(int type) {
    switch (type) {
        case kQ4_0:
            return format_strip_rows<Q4_0Strips>;
        case kIQ4_NL:
            return format_strip_rows<Iq4NlStrips>;
        case kIQ4_XS:
            return format_strip_rows<Iq4XsStrips>;
        case kQ3_K:
            return strip_passes<kPassTokens, q3_k::Pass>;
        default:
            return nullptr;
    }
}

}  // namespace hearth::kernels::vnni
