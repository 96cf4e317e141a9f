// AVX-512 VNNI dot products for decode of the k-quants Q3_K, Q4_K, Q5_K and Q6_K (this file
// is compiled with AVX-512; it runs only after best_isa() confirmed the CPU has it). Each kernel
// is written for a group of K tokens (dot_many.h), unpacking a block once for all of them; the
// 4-bit grid formats and Q8_0 are in dot_grid_vnni.cpp.
#include <immintrin.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <type_traits>

#include "kernels/activation_blocks.h"
#include "kernels/avx512_helpers.h"
#include "kernels/dot_many.h"
#include "kernels/dot_variants.h"
#include "kernels/quant_blocks.h"
#include "kernels/simd_helpers.h"

namespace hearth::kernels::vnni {
namespace {

// A byte permute that widens two unpacked scales to 16-bit words (the odd bytes are masked to
// zero): byte `first` into words 0-15, byte `second` into words 16-31.
constexpr std::array<uint8_t, 64> word_index(int first, int second) {
    std::array<uint8_t, 64> index{};
    for (int i = 0; i < 64; i += 2) index[i] = static_cast<uint8_t>(i < 32 ? first : second);
    return index;
}

constexpr __mmask64 kEvenBytes = 0x5555555555555555;

// A super-block's sums into the tokens' accumulators: the values' offset (2^shift) comes back
// out through the activations' sums per 16, each times its scale.
template <int K>
[[gnu::always_inline]] inline void add_super_block(const __m512i (&sums)[K], __m256i wide_scales,
                                                   int shift, float scale,
                                                   const std::array<const BlockQ8K*, K>& y,
                                                   size_t b, __m256 (&acc)[K]) {
#pragma GCC unroll 8
    for (int t = 0; t < K; ++t) {
        const __m256i offsets = _mm256_madd_epi16(wide_scales, load(y[t][b].sums));
        const __m256i halves = _mm256_add_epi32(_mm512_castsi512_si256(sums[t]),
                                                _mm512_extracti64x4_epi64(sums[t], 1));
        const __m256i total = _mm256_sub_epi32(halves, _mm256_slli_epi32(offsets, shift));
        acc[t] = _mm256_fmadd_ps(_mm256_set1_ps(scale * y[t][b].scale), _mm256_cvtepi32_ps(total),
                                 acc[t]);
    }
}

// Q3_K reads its activations in their own order: vector (h, j) holds runs 2j and 2j + 1 of half
// h, 64 consecutive quants, so each loads whole as an operand. Its weights follow: the half's 32
// bytes of bit pairs, broadcast to both 256-bit halves and shifted by 4j and 4j + 2 in one
// variable shift; the high bits, broadcast likewise, land on bit 2 of each byte in one GF(2)
// affine byte transform (each 64-bit lane's matrix picks its own bit); one ternary-logic
// instruction masks the pairs and merges the two. Values are read unsigned (bit pair plus 4 with
// the high bit) and the 4 comes back out through the activations' sums per 16. The kernel this
// replaced put run k of both halves in one vector, so it joined two halves of activations per
// run and moved each run's high bit by its own shift; at 75 instructions per super-block it read
// 13.5 GB/s on one core here, too slow to keep up with memory.

// Bit pairs of runs 2j (lanes 0-15) and 2j + 1 (lanes 16-31), as word shifts.
__m512i pair_shifts(int j) {
    return _mm512_inserti64x4(_mm512_set1_epi16(static_cast<int16_t>(4 * j)),
                              _mm256_set1_epi16(static_cast<int16_t>(4 * j + 2)), 1);
}

// Which high bit vector (h, j) takes: bit 4h + 2j in the low half, 4h + 2j + 1 in the high one.
__m512i high_bit_matrix(int h, int j) {
    return move_bit(4 * h + 2 * j, 4 * h + 2 * j + 1, 2);
}

// Word w of vector (h, j) (elements 128h + 64j on) weighs elements 2w and 2w + 1 of it: scale
// 8h + 4j + w / 8 of sixteen (Q3_K's and Q6_K's).
constexpr std::array<uint16_t, 32> natural_scale_words(int h, int j) {
    std::array<uint16_t, 32> index{};
    for (int w = 0; w < 32; ++w) index[w] = static_cast<uint16_t>(8 * h + 4 * j + w / 8);
    return index;
}

// Vector v = 2h + j of a super-block in element order (Q3_K's and Q6_K's): its unsigned values
// times each token's 64 activations, weighted by their scales (the low 16 words of `scales`),
// added to the tokens' sums. vpdpwssd weighs the pairs and adds them in one instruction (no sum
// here comes near the int32 range).
template <int K>
[[gnu::always_inline]] inline void add_vector(__m512i values, int v, __m512i scales,
                                              const std::array<const BlockQ8K*, K>& y, size_t b,
                                              __m512i (&sums)[K]) {
    static constexpr std::array<uint16_t, 32> kScaleWords[4] = {
        natural_scale_words(0, 0), natural_scale_words(0, 1), natural_scale_words(1, 0),
        natural_scale_words(1, 1)};
    const __m512i vector_scales =
        _mm512_permutexvar_epi16(_mm512_loadu_si512(kScaleWords[v].data()), scales);
#pragma GCC unroll 8
    for (int t = 0; t < K; ++t) {
        const __m512i activations = _mm512_loadu_si512(y[t][b].quants + 64 * v);
        sums[t] =
            _mm512_dpwssd_epi32(sums[t], _mm512_maddubs_epi16(values, activations), vector_scales);
    }
}

// Per 16-bit word j, the bit offset (within a 64-bit lane) vpmultishiftqb reads the word's high
// byte from: from the scales' bytes 0-7, so that scale j's low nibble lands on bits 10-13 of the
// word, or with `top_pair` from bytes 4-11, so that its top bit pair lands on bits 14-15. An
// offset below zero wraps around the lane, as the instruction does.
constexpr std::array<uint8_t, 32> q3_k_scale_offsets(bool top_pair) {
    std::array<uint8_t, 32> offsets{};
    for (int j = 0; j < 16; ++j) {
        const int from = top_pair ? 32 + 8 * (j % 4) + 2 * (j / 4) : 8 * (j % 8) + 4 * (j / 8);
        offsets[2 * (j % 4) + 1 + 8 * (j / 4)] =
            static_cast<uint8_t>((from - (top_pair ? 6 : 2)) & 63);
    }
    return offsets;
}

// Q3_K's sixteen 6-bit scales less 32, as words: two bit-field gathers and a merge (with the
// 6-bit field at the top of each word, one shift brings it down unsigned). The twelve bytes are
// read as two overlapping eight-byte loads, neither past the block.
__m256i q3_k_wide_scales(const uint8_t* packed) {
    static constexpr std::array<uint8_t, 32> kLowOffsets = q3_k_scale_offsets(false);
    static constexpr std::array<uint8_t, 32> kTopOffsets = q3_k_scale_offsets(true);
    int64_t first, last;
    std::memcpy(&first, packed, sizeof first);
    std::memcpy(&last, packed + 4, sizeof last);
    const __m256i lows =
        _mm256_multishift_epi64_epi8(load(kLowOffsets.data()), _mm256_set1_epi64x(first));
    const __m256i tops =
        _mm256_multishift_epi64_epi8(load(kTopOffsets.data()), _mm256_set1_epi64x(last));
    // Bits 10-13 from the lows, 14-15 from the tops.
    const __m256i six_bits = _mm256_ternarylogic_epi32(lows, tops, _mm256_set1_epi16(0x3c00), 0xe4);
    return _mm256_sub_epi16(_mm256_srli_epi16(six_bits, 10), _mm256_set1_epi16(32));
}

constexpr auto q3_k = []<int K>(const void* w, const TokenGroup<K>& group, size_t n) {
    const auto* x = static_cast<const BlockQ3_K*>(w);
    const auto y = activation_rows<BlockQ8K>(group);
    const __m512i shifts[2] = {pair_shifts(0), pair_shifts(1)};
    const __m512i matrices[4] = {high_bit_matrix(0, 0), high_bit_matrix(0, 1),
                                 high_bit_matrix(1, 0), high_bit_matrix(1, 1)};
    const __m512i pair_mask = _mm512_set1_epi8(0x03);
    __m256 acc[K];
    for (int t = 0; t < K; ++t) acc[t] = _mm256_setzero_ps();
    for (size_t b = 0; b < n / 256; ++b) {
        if constexpr (K == 1) prefetch_ahead(x + b);
        const __m256i wide_scales = q3_k_wide_scales(x[b].scales);
        const __m512i scales = _mm512_castsi256_si512(wide_scales);
        const __m512i high = _mm512_broadcast_i64x4(load(x[b].high_bits));
        __m512i sums[K];
        for (int t = 0; t < K; ++t) sums[t] = _mm512_setzero_si512();
#pragma GCC unroll 2
        for (int h = 0; h < 2; ++h) {
            const __m512i packed = _mm512_broadcast_i64x4(load(x[b].quants + 32 * h));
#pragma GCC unroll 2
            for (int j = 0; j < 2; ++j) {
                const int v = 2 * h + j;
                const __m512i placed = _mm512_gf2p8affine_epi64_epi8(high, matrices[v], 0);
                // (pairs & 3) | placed
                const __m512i values = _mm512_ternarylogic_epi32(
                    _mm512_srlv_epi16(packed, shifts[j]), placed, pair_mask, 0xec);
                add_vector<K>(values, v, scales, y, b, sums);
            }
        }
        add_super_block<K>(sums, wide_scales, 2, _cvtsh_ss(x[b].scale), y, b, acc);
    }
    for (int t = 0; t < K; ++t) group.put(t, horizontal_sum(acc[t]));
};

// Q6_K, read in its elements' order as Q3_K is: vector (h, j) holds runs 2j and 2j + 1 of half
// h, 64 consecutive elements, so each token's activations load whole as an operand (the kernel
// this replaced joined run k of both halves and so inserted a half of activations per token and
// run). Runs 0 and 1 of a half are the low nibbles of its 64 low-bit bytes in order, runs 2 and 3
// the high ones; the half's 32 high-bit bytes, broadcast to both 256-bit halves, hold run r's
// pair at bit 2r, which one word shift per vector (a count for each half) brings to bits 4-5.
// Values are read unsigned (offset 32, taken back out through the activations' sums per 16).
constexpr auto q6_k = []<int K>(const void* w, const TokenGroup<K>& group, size_t n) {
    const auto* x = static_cast<const BlockQ6_K*>(w);
    const auto y = activation_rows<BlockQ8K>(group);
    const __m512i low_nibble = _mm512_set1_epi8(0x0f),
                  high_nibble = _mm512_set1_epi8(static_cast<char>(0xf0)),
                  pair = _mm512_set1_epi8(0x30);
    // Runs 0 and 1: pairs at bits 0 and 2, left by 4 and 2; runs 2 and 3: at 4 and 6, right by
    // 0 and 2.
    const __m512i up = _mm512_inserti64x4(_mm512_set1_epi16(4), _mm256_set1_epi16(2), 1);
    const __m512i down = _mm512_inserti64x4(_mm512_setzero_si512(), _mm256_set1_epi16(2), 1);
    __m256 acc[K];
    for (int t = 0; t < K; ++t) acc[t] = _mm256_setzero_ps();
    for (size_t b = 0; b < n / 256; ++b) {
        if constexpr (K == 1) prefetch_ahead(x + b);
        const __m256i wide_scales =
            _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(x[b].scales)));
        const __m512i scales = _mm512_castsi256_si512(wide_scales);
        __m512i sums[K];
        for (int t = 0; t < K; ++t) sums[t] = _mm512_setzero_si512();
        // Loaded in address order (out of order, a single stream from memory ran slower than the
        // AVX2 kernel's in an earlier version of this dot).
        const __m512i lows[2] = {own_register(_mm512_loadu_si512(x[b].low_bits)),
                                 own_register(_mm512_loadu_si512(x[b].low_bits + 64))};
#pragma GCC unroll 2
        for (int h = 0; h < 2; ++h) {
            const __m512i low = lows[h];
            const __m512i high = _mm512_broadcast_i64x4(load(x[b].high_bits + 32 * h));
#pragma GCC unroll 2
            for (int j = 0; j < 2; ++j) {
                const int v = 2 * h + j;
                const __m512i nibbles =
                    j == 0 ? _mm512_and_si512(low, low_nibble)
                           : _mm512_srli_epi16(_mm512_and_si512(low, high_nibble), 4);
                const __m512i placed =
                    j == 0 ? _mm512_sllv_epi16(high, up) : _mm512_srlv_epi16(high, down);
                // nibbles | (placed & 0x30) in one ternary-logic instruction.
                const __m512i values = _mm512_ternarylogic_epi32(nibbles, placed, pair, 0xf8);
                add_vector<K>(values, v, scales, y, b, sums);
            }
        }
        add_super_block<K>(sums, wide_scales, 5, _cvtsh_ss(x[b].scale), y, b, acc);
    }
    for (int t = 0; t < K; ++t) group.put(t, horizontal_sum(acc[t]));
};

// 64 bytes of Q4_K nibbles cover 128 elements: the low nibbles are sub-blocks 2c (bytes 0-31)
// and 2c + 2 (bytes 32-63), the high ones 2c + 1 and 2c + 3. The activations' 128-bit lanes are
// shuffled to match, u8 x s8 pairs summed to 16 bits, then multiplied by each lane's scale and
// summed to 32 bits in one vpdpwssd. Minimums meet the activation sums once per super-block.
// A group of K tokens shares each super-block's unpacking (nibbles, scale and minimum words).
// Q5_K is the same with a fifth bit per value: bit 2j of high byte l belongs to run j's low
// nibble l and bit 2j + 1 to its high one, so one GF(2) affine transform of the high bytes,
// broadcast to both 256-bit halves (runs 2c and 2c + 1), moves each half's bit to bit 4.
template <typename Block, int K>
void four_or_five_bits(const void* w, const TokenGroup<K>& group, size_t n) {
    constexpr bool kFifthBits = std::is_same_v<Block, BlockQ5_K>;
    static constexpr std::array<uint8_t, 64> kPairs[4] = {word_index(0, 2), word_index(1, 3),
                                                          word_index(4, 6), word_index(5, 7)};
    static constexpr std::array<uint8_t, 64> kMinimums = [] {
        std::array<uint8_t, 64> index{};
        for (int i = 0; i < 32; i += 2) index[i] = static_cast<uint8_t>(8 + i / 4);
        return index;
    }();
    const auto* x = static_cast<const Block*>(w);
    const auto y = activation_rows<BlockQ8K>(group);
    const __m512i nibble = _mm512_set1_epi8(0x0f);
    __m512 acc[K];
    __m256 offsets[K];
    for (int t = 0; t < K; ++t) acc[t] = _mm512_setzero_ps(), offsets[t] = _mm256_setzero_ps();
    for (size_t b = 0; b < n / 256; ++b) {
        if constexpr (K == 1) prefetch_ahead(x + b);
        const __m512i unpacked = _mm512_castsi128_si512(k_scale_bytes(x[b].scales));
        // The low and high nibbles' products add into sums of their own: for one token, a chain
        // of four dependent vpdpwssd was the critical path. (Integer sums: the same either way.)
        __m512i low_sum[K], high_sum[K];
        for (int t = 0; t < K; ++t) low_sum[t] = high_sum[t] = _mm512_setzero_si512();
#pragma GCC unroll 2
        for (int c = 0; c < 2; ++c) {
            // Each vector loaded once: GCC otherwise folds the loads into both of their uses,
            // reading every weight and activation byte twice (8% of the dot in L2).
            const __m512i packed = own_register(_mm512_loadu_si512(x[b].quants + 64 * c));
            __m512i low = _mm512_and_si512(packed, nibble);
            __m512i high = _mm512_and_si512(_mm512_srli_epi16(packed, 4), nibble);
            if constexpr (kFifthBits) {
                const __m512i bits = _mm512_broadcast_i64x4(load(x[b].high_bits));
                low = _mm512_or_si512(
                    low, _mm512_gf2p8affine_epi64_epi8(bits, move_bit(4 * c, 4 * c + 2, 4), 0));
                high = _mm512_or_si512(high, _mm512_gf2p8affine_epi64_epi8(
                                                 bits, move_bit(4 * c + 1, 4 * c + 3, 4), 0));
            }
            const __m512i low_scales = _mm512_maskz_permutexvar_epi8(
                kEvenBytes, _mm512_loadu_si512(kPairs[2 * c].data()), unpacked);
            const __m512i high_scales = _mm512_maskz_permutexvar_epi8(
                kEvenBytes, _mm512_loadu_si512(kPairs[2 * c + 1].data()), unpacked);
#pragma GCC unroll 8
            for (int t = 0; t < K; ++t) {
                const __m512i first = own_register(_mm512_loadu_si512(y[t][b].quants + 128 * c));
                const __m512i second =
                    own_register(_mm512_loadu_si512(y[t][b].quants + 128 * c + 64));
                low_sum[t] = _mm512_dpwssd_epi32(
                    low_sum[t],
                    _mm512_maddubs_epi16(low, _mm512_shuffle_i64x2(first, second, 0x44)),
                    low_scales);
                high_sum[t] = _mm512_dpwssd_epi32(
                    high_sum[t],
                    _mm512_maddubs_epi16(high, _mm512_shuffle_i64x2(first, second, 0xee)),
                    high_scales);
            }
        }
        // Each minimum twice (one per 16-element activation sum), times those sums.
        const __m256i minimums = _mm512_castsi512_si256(_mm512_maskz_permutexvar_epi8(
            kEvenBytes, _mm512_loadu_si512(kMinimums.data()), unpacked));
        const float scale = _cvtsh_ss(x[b].scale), minimum = _cvtsh_ss(x[b].minimum);
#pragma GCC unroll 8
        for (int t = 0; t < K; ++t) {
            const __m512i sum = _mm512_add_epi32(low_sum[t], high_sum[t]);
            acc[t] = _mm512_fmadd_ps(_mm512_set1_ps(scale * y[t][b].scale), _mm512_cvtepi32_ps(sum),
                                     acc[t]);
            const __m256i products = _mm256_madd_epi16(minimums, load(y[t][b].sums));
            offsets[t] = _mm256_fmadd_ps(_mm256_set1_ps(minimum * y[t][b].scale),
                                         _mm256_cvtepi32_ps(products), offsets[t]);
        }
    }
    for (int t = 0; t < K; ++t) group.put(t, sum_of(acc[t]) - horizontal_sum(offsets[t]));
}

constexpr auto q4_k = []<int K>(const void* w, const TokenGroup<K>& group, size_t n) {
    four_or_five_bits<BlockQ4_K, K>(w, group, n);
};

constexpr auto q5_k = []<int K>(const void* w, const TokenGroup<K>& group, size_t n) {
    four_or_five_bits<BlockQ5_K, K>(w, group, n);
};

}  // namespace

void set_kernels(DotTable& table) {
    set_kernel<q3_k>(table, kQ3_K);
    set_kernel<q4_k>(table, kQ4_K);
    set_kernel<q5_k>(table, kQ5_K);
    set_kernel<q6_k>(table, kQ6_K);
}

}  // namespace hearth::kernels::vnni
