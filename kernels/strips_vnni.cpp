// The AVX-512 VNNI kernels over strips (strips.h), compiled with AVX-512: the strip's sixteen rows
// in the sixteen 32-bit lanes. Per 32-element block the 256 nibble bytes load as four vectors
// whose low and high nibbles are the eight quads; each token then broadcasts four of its
// activation bytes per quad: 8 vpdpbusd, the values' offset taken out exactly, one conversion,
// one scale product and one FMA for 512 multiply-adds. The row layout's kernel
// (dot_grid_vnni.cpp) spends the same 8 vpdpbusd but six float operations and the byte permutes
// that gather a row's blocks into lanes. One thread, Q4_0 5632 x 2048, µs a token, strips
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
        default:
            return nullptr;
    }
}

}  // namespace hearth::kernels::vnni
