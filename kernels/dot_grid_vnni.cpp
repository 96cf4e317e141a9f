// AVX-512 VNNI dot products for the 4-bit grid formats (Q4_0, IQ4_NL, IQ4_XS, MXFP4), Q5_0 and
// Q8_0, for decode and batched decode (this file is compiled with AVX-512; it runs only after
// best_isa() confirmed the CPU has it). Decode streams every weight once per token, so the work per
// weight byte must stay well under the time memory takes to deliver it. Eight Q4_0 blocks (144
// bytes) are read straight from the file per step: byte permutes pull their nibbles together and
// spread their f16 scales over the lanes, and the activations come pre-arranged (LaneGroup) so
// that a group ends in one vector of 16 integer sums, one conversion and one FMA, with no
// horizontal sums until the end of the row. IQ4_NL, IQ4_XS and MXFP4 read the same way, their
// nibbles looked up in a biased grid, and Q8_0's bytes are gathered into the same lanes. All of
// them unpack each group once for up to eight tokens and two rows, which is what batched decode
// (the server's rows, speculative verification) gains from.
#include <immintrin.h>

#include <array>
#include <cstdint>
#include <initializer_list>

#include "kernels/activation_blocks.h"
#include "kernels/avx512_helpers.h"
#include "kernels/dot_many.h"
#include "kernels/dot_variants.h"
#include "kernels/quant_blocks.h"
#include "kernels/simd_helpers.h"

namespace hearth::kernels::vnni {
namespace {

// A byte gather from a group of up to 192 bytes held in three vectors: a two-register permute
// over the first 128, then the bytes past them merged in from the third.
struct GatherIndex {
    std::array<uint8_t, 64> first;  // index into bytes 0-127
    std::array<uint8_t, 64> tail;   // index into bytes 128-191
    uint64_t from_tail = 0;         // which result bytes come from the tail

    // Result byte `at` takes byte `from` of the group.
    constexpr void take(int at, int from) {
        if (from < 128) {
            first[at] = static_cast<uint8_t>(from);
        } else {
            tail[at] = static_cast<uint8_t>(from - 128);
            from_tail |= uint64_t{1} << at;
        }
    }
};

// Word `word` (0 or 1) of each lane's eight nibble bytes: lane 2k + h takes bytes 8h + 4 * word
// to 8h + 4 * word + 3 of block k's nibbles (blocks of `block_bytes`, the nibbles after a
// `header`-byte scale).
constexpr GatherIndex nibble_index(int block_bytes, int header, int word) {
    GatherIndex index{};
    for (int at = 0; at < 64; ++at) {
        const int lane = at / 4;
        index.take(at, block_bytes * (lane / 2) + header + 8 * (lane % 2) + 4 * word + at % 4);
    }
    return index;
}

// The bytes of sixteen f16 words, word l holding the scale of block l / 2 (Q5_0's last block's
// lies past the first 128 bytes of its group).
constexpr GatherIndex scale_index(int block_bytes) {
    GatherIndex index{};
    for (int i = 0; i < 32; ++i) index.take(i, block_bytes * (i / 4) + i % 2);
    return index;
}

__mmask64 first_bytes(size_t count) {
    return count >= 64 ? ~__mmask64{0} : (__mmask64{1} << count) - 1;
}

// Which of the 64 bytes from `offset` on lie inside a group of `bytes` bytes.
__mmask64 part_bytes(size_t bytes, size_t offset) {
    return first_bytes(bytes > offset ? bytes - offset : 0);
}

// Up to 64 bytes from `offset` on of a group of `bytes` bytes, nothing past it (masked loads:
// a short last group reads nothing past the row).
__m512i load_part(const uint8_t* group, size_t bytes, size_t offset) {
    return _mm512_maskz_loadu_epi8(part_bytes(bytes, offset), group + offset);
}

__m512i load_index(const std::array<uint8_t, 64>& index) {
    return _mm512_loadu_si512(index.data());
}

// A GatherIndex's gather from a group's three vectors; `first` and `from_tail` are its indexes,
// loaded.
[[gnu::always_inline]] inline __m512i gather(__m512i head, __m512i body, __m512i tail,
                                             __m512i first, __m512i from_tail,
                                             uint64_t tail_bytes) {
    return _mm512_mask_permutexvar_epi8(_mm512_permutex2var_epi8(head, first, body), tail_bytes,
                                        from_tail, tail);
}

// Q4_0, IQ4_NL and MXFP4 read eight blocks a group (IQ4_XS a super-block's eight), two lanes a
// block (LaneGroup): each lane's 16 products add up in one integer, so a conversion, a scale
// product and an FMA serve four vpdpbusd (with four blocks of four lanes they served two, and
// those three float operations were as many as the products). Q4_0's nibbles are its unsigned
// values as vpdpbusd wants them, with the group's offsets (-8 times each lane's activation sum)
// taking the 8 back out. The others' are looked up in the format's grid plus a bias of
// 8 << kShift, so that every value is unsigned too, and the offsets shifted by kShift take the
// bias back out, exactly (avx512_helpers.h's biased_grid).

// What a format of 32-element blocks (a `Header`-byte scale, then 16 bytes of nibbles) reads as
// groups of eight.
template <typename BlockType, int Header>
struct BlockGroups {
    using Block = BlockType;
    static constexpr size_t kBlockBytes = sizeof(Block);
    static constexpr size_t kGroupBytes = LaneGroup::kBlocks * kBlockBytes;
    static constexpr auto kFirstWords = nibble_index(sizeof(Block), Header, 0);
    static constexpr auto kSecondWords = nibble_index(sizeof(Block), Header, 1);
};

// The formats whose nibbles index a grid: their biased values, looked up.
struct GridValues {
    static __m512i values(__m512i nibbles, __m512i grid) {
        return _mm512_permutexvar_epi8(nibbles, grid);
    }
};

// Q4_0's, IQ4_NL's and Q5_0's blocks: an f16 scale, then (after Q5_0's high bits) the nibbles.
template <typename BlockType, int Header = 2>
struct HalfScaledFormat : BlockGroups<BlockType, Header> {
    static constexpr GatherIndex kScaleBytes = scale_index(sizeof(BlockType));
    static constexpr auto kScales = kScaleBytes.first;
    // The eight blocks' scales over the lanes, as floats; the tail only where a scale lies in it.
    static __m512 weight_scales(__m512i head, __m512i body, __m512i tail, __m512i index) {
        __m512i words;
        if constexpr (kScaleBytes.from_tail != 0) {
            words = gather(head, body, tail, index, load_index(kScaleBytes.tail),
                           kScaleBytes.from_tail);
        } else {
            words = _mm512_permutex2var_epi8(head, index, body);
        }
        return _mm512_cvtph_ps(_mm512_castsi512_si256(words));
    }
    static __m512 scales(__m512 weight, __m512 activation) {
        return _mm512_mul_ps(weight, activation);
    }
};

// The formats whose nibbles are their unsigned values (the "grid" is the nibble mask).
struct NibbleValues {
    static constexpr std::array<uint8_t, 64> kGrid = [] {
        std::array<uint8_t, 64> mask{};
        mask.fill(0x0f);
        return mask;
    }();
    static __m512i values(__m512i nibbles, __m512i mask) { return _mm512_and_si512(nibbles, mask); }
};

// Q4_0: values 0..15, the 8 taken back out through the offsets.
struct Q4_0Format : HalfScaledFormat<BlockQ4_0>, NibbleValues {
    static constexpr int kShift = 0;
};

// Q5_0: Q4_0's nibbles, a fifth bit per element from the block's 32-bit word of high bits, and
// an offset of 16. Each block's word lands in the low half of its 64-bit lane (lanes 2k and
// 2k + 1 of a group are block k's), where one vpshufbitqmb per values vector picks each byte's
// bit into a mask and a masked add sets it: four more instructions per group than Q4_0's, shared
// by every token and read in place from the file like the nibbles.
struct Q5_0Format : HalfScaledFormat<BlockQ5_0, 6>, NibbleValues {
    static constexpr int kShift = 1;
    // The group's high-bit words, block k's at bytes 8k..8k+3.
    static constexpr GatherIndex kHighWords = [] {
        GatherIndex index{};
        for (int k = 0; k < 8; ++k) {
            for (int i = 0; i < 4; ++i)
                index.take(8 * k + i, static_cast<int>(sizeof(BlockQ5_0)) * k + 2 + i);
        }
        return index;
    }();
    // Per values vector v, the element each byte of a 64-bit lane holds (as lane_place lays them
    // out: byte 4h + i of the lane is element 8h + 4(v % 2) + i + 16(v / 2)), which is the bit
    // of the block's word to read.
    static constexpr std::array<std::array<uint8_t, 64>, 4> kHighBits = [] {
        std::array<std::array<uint8_t, 64>, 4> bits{};
        for (int v = 0; v < 4; ++v) {
            for (int at = 0; at < 64; ++at) {
                const int p = at % 8;
                bits[v][at] =
                    static_cast<uint8_t>(8 * (p / 4) + 4 * (v % 2) + p % 4 + 16 * (v / 2));
            }
        }
        return bits;
    }();
};

// IQ4_NL: Q4_0's block (an f16 scale, then the nibbles); values -127..113 become 1..241.
struct Iq4NlFormat : HalfScaledFormat<BlockIQ4_NL>, GridValues {
    static constexpr int kShift = 4;
    static constexpr auto kGrid = biased_grid(kIq4Values, 8 << kShift);
};

// IQ4_XS: IQ4_NL's values, a super-block of 256 making one group. It holds an f16 scale d, the
// eight sub-blocks' 6-bit scales (high bit pairs in a 16-bit word, low nibbles in four bytes),
// then the sub-blocks' nibbles laid out as IQ4_NL blocks'. A lane's scale is d times its
// sub-block's scale less 32, exact in a float. Rows are whole super-blocks: no partial group.
struct Iq4XsFormat : Iq4NlFormat {
    static constexpr size_t kBlockBytes = 0;
    static constexpr size_t kGroupBytes = sizeof(BlockIQ4_XS);
    static constexpr auto kFirstWords = nibble_index(16, 8, 0);
    static constexpr auto kSecondWords = nibble_index(16, 8, 1);
    // Per lane, the shift that brings its sub-block's low scale nibble down: 4 * (lane / 2).
    static constexpr std::array<uint8_t, 64> kScales = [] {
        std::array<uint8_t, 64> shifts{};
        for (int lane = 0; lane < 16; ++lane)
            shifts[4 * lane] = static_cast<uint8_t>(4 * (lane / 2));
        return shifts;
    }();
    static __m512 weight_scales(__m512i head, __m512i, __m512i, __m512i low_shifts) {
        const __m512i scale_and_high = _mm512_broadcastd_epi32(_mm512_castsi512_si128(head));
        const __m512i low_nibbles = _mm512_permutexvar_epi32(_mm512_set1_epi32(1), head);
        const __m512i low =
            _mm512_and_si512(_mm512_srlv_epi32(low_nibbles, low_shifts), _mm512_set1_epi32(0x0f));
        const __m512i high_shifts =
            _mm512_add_epi32(_mm512_srli_epi32(low_shifts, 1), _mm512_set1_epi32(16));
        const __m512i high =
            _mm512_and_si512(_mm512_srlv_epi32(scale_and_high, high_shifts), _mm512_set1_epi32(3));
        const __m512i six_bits = _mm512_or_si512(low, _mm512_slli_epi32(high, 4));
        const __m512 scale = _mm512_cvtph_ps(_mm512_cvtepi32_epi16(scale_and_high));
        return _mm512_mul_ps(scale,
                             _mm512_cvtepi32_ps(_mm512_sub_epi32(six_bits, _mm512_set1_epi32(32))));
    }
};

// MXFP4: a one-byte exponent, then the nibbles; the doubled E2M1 values -12..12 become 4..28.
// The block's scale 2^(exponent - 128) is applied to the activations' with vscalefps: the
// product rounds once, as the scalar twin's does, and the subnormal scales come out exact.
struct Mxfp4Format : BlockGroups<BlockMXFP4, 1>, GridValues {
    static constexpr int kShift = 1;
    static constexpr auto kGrid = biased_grid(kMxfp4Values, 8 << kShift);
    // Each lane's block's exponent in the lane's low byte (the other bytes masked to zero).
    static constexpr std::array<uint8_t, 64> kScales = [] {
        std::array<uint8_t, 64> index{};
        for (int i = 0; i < 64; i += 4) index[i] = static_cast<uint8_t>(sizeof(Block) * (i / 8));
        return index;
    }();
    // The eight blocks' powers of two over the lanes, as float exponents.
    static __m512 weight_scales(__m512i head, __m512i body, __m512i, __m512i index) {
        const __m512i exponents =
            _mm512_maskz_permutex2var_epi8(0x1111111111111111, head, index, body);
        return _mm512_cvtepi32_ps(_mm512_sub_epi32(exponents, _mm512_set1_epi32(128)));
    }
    static __m512 scales(__m512 weight, __m512 activation) {
        return _mm512_scalef_ps(activation, weight);
    }
};

// A group's weights unpacked once for every token and row: the biased values of each lane's
// four words of nibbles (low nibbles of words 0 and 1, then high), and the blocks' scales over
// the lanes.
struct GridWeights {
    __m512i values[4];
    __m512 scales;
};

// Q8_0: an f16 scale, then 32 signed bytes, read unsigned (+128) as vpdpbusd wants them, the
// offsets shifted by kShift taking the 128 back out. Its group of 272 bytes is too wide for the
// grid formats' three-vector gathers (GridReader<Q8_0Format> below).
struct Q8_0Format {
    using Block = BlockQ8_0;
    static constexpr size_t kBlockBytes = sizeof(Block);
    static constexpr size_t kGroupBytes = LaneGroup::kBlocks * kBlockBytes;
    static constexpr int kShift = 4;
    static __m512 scales(__m512 weight, __m512 activation) {
        return _mm512_mul_ps(weight, activation);
    }
};

template <typename Format>
class GridReader {
public:
    [[gnu::always_inline]] GridWeights read(const uint8_t* weights, size_t bytes) const {
        const __m512i head = load_part(weights, bytes, 0), body = load_part(weights, bytes, 64),
                      tail = load_part(weights, bytes, 128);
        const __m512i first =
            gather(head, body, tail, m_first, m_first_tail, Format::kFirstWords.from_tail);
        const __m512i second =
            gather(head, body, tail, m_second, m_second_tail, Format::kSecondWords.from_tail);
        GridWeights unpacked{{Format::values(first, m_grid), Format::values(second, m_grid),
                              Format::values(_mm512_srli_epi16(first, 4), m_grid),
                              Format::values(_mm512_srli_epi16(second, 4), m_grid)},
                             Format::weight_scales(head, body, tail, m_scales)};
        if constexpr (requires { Format::kHighWords; }) add_high_bits(head, body, tail, unpacked);
        return unpacked;
    }

private:
    // Q5_0's fifth bits, 16 added where they are set.
    [[gnu::always_inline]] static void add_high_bits(__m512i head, __m512i body, __m512i tail,
                                                     GridWeights& unpacked) {
        const __m512i words =
            gather(head, body, tail, load_index(Format::kHighWords.first),
                   load_index(Format::kHighWords.tail), Format::kHighWords.from_tail);
        const __m512i sixteen = _mm512_set1_epi8(16);
#pragma GCC unroll 4
        for (int v = 0; v < 4; ++v) {
            const __mmask64 set =
                _mm512_bitshuffle_epi64_mask(words, load_index(Format::kHighBits[v]));
            unpacked.values[v] =
                _mm512_mask_add_epi8(unpacked.values[v], set, unpacked.values[v], sixteen);
        }
    }

    __m512i m_first = load_index(Format::kFirstWords.first);
    __m512i m_first_tail = load_index(Format::kFirstWords.tail);
    __m512i m_second = load_index(Format::kSecondWords.first);
    __m512i m_second_tail = load_index(Format::kSecondWords.tail);
    __m512i m_scales = load_index(Format::kScales);
    __m512i m_grid = load_index(Format::kGrid);
};

// Q8_0's group, read without touching a byte past `bytes`: the quants of blocks 2j and 2j + 1
// load side by side into one vector (block-major, as they lie). A lane holds two of its block's
// dwords in each lane vector, so one two-vector dword permute per pair of those vectors gathers
// blocks 0-3 (or 4-7) of two lane vectors at once, and a 128-bit shuffle joins the halves. The
// eight scales come from the group's first 256 bytes: two byte permutes and a blend.
template <>
class GridReader<Q8_0Format> {
public:
    [[gnu::always_inline]] GridWeights read(const uint8_t* weights, size_t bytes) const {
        constexpr size_t kBlock = Q8_0Format::kBlockBytes;
        // A short last group (SmolLM's 576 columns end in one of two blocks) reads only its
        // first half: every row of such a matrix has one. Its Q8_0 head (32000 rows from L3, one
        // token, one thread) took 769-810 µs paired without this and 694-773 with it, level
        // with the planar kernel the lane groups replaced (698-757).
        const bool half = bytes <= 4 * kBlock;
        const __m512i bias = _mm512_set1_epi8(static_cast<char>(0x80));
        __m512i pairs[4];
#pragma GCC unroll 4
        for (int j = 0; j < 4; ++j) {
            if (half && j >= 2) {
                pairs[j] = _mm512_setzero_si512();
                continue;
            }
            const size_t first = 2 * j * kBlock + 2, second = first + kBlock;
            const __m256i low = _mm256_maskz_loadu_epi8(
                static_cast<__mmask32>(part_bytes(bytes, first)), weights + first);
            const __m256i high = _mm256_maskz_loadu_epi8(
                static_cast<__mmask32>(part_bytes(bytes, second)), weights + second);
            pairs[j] =
                _mm512_xor_si512(_mm512_inserti64x4(_mm512_castsi256_si512(low), high, 1), bias);
        }
        GridWeights unpacked;
#pragma GCC unroll 2
        for (int v = 0; v < 4; v += 2) {
            const __m512i index = v == 0 ? m_first : m_second;
            const __m512i front = _mm512_permutex2var_epi32(pairs[0], index, pairs[1]);
            const __m512i back = half ? _mm512_setzero_si512()
                                      : _mm512_permutex2var_epi32(pairs[2], index, pairs[3]);
            unpacked.values[v] = _mm512_shuffle_i64x2(front, back, 0x44);
            unpacked.values[v + 1] = _mm512_shuffle_i64x2(front, back, 0xee);
        }
        // Words 8-15 (blocks 4-7) are zero in a half group, as the whole group's would read.
        __m512i words = _mm512_maskz_permutex2var_epi8(0xffff, load_part(weights, bytes, 0),
                                                       m_scales, load_part(weights, bytes, 64));
        if (!half) {
            words = _mm512_mask_blend_epi8(
                0xffff0000, words,
                _mm512_permutex2var_epi8(load_part(weights, bytes, 128), m_scales,
                                         load_part(weights, bytes, 192)));
        }
        unpacked.scales = _mm512_cvtph_ps(_mm512_castsi512_si256(words));
        return unpacked;
    }

private:
    // Lane vectors v (result dwords 0-7) and v + 1 (dwords 8-15) for blocks 0-3, from two pair
    // vectors (block k's quants at dword 8k): lane 2k + h of vector v holds elements 16 (v / 2) +
    // 8h + 4 (v % 2) to 3 more, as lane_place lays the activations out, which is the block's
    // dword 4 (v / 2) + 2h + v % 2.
    static constexpr std::array<uint32_t, 16> lane_index(int v) {
        std::array<uint32_t, 16> index{};
        for (int at = 0; at < 16; ++at) {
            const int vector = v + at / 8, k = at % 8 / 2, h = at % 2;
            index[at] = static_cast<uint32_t>(8 * k + 4 * (vector / 2) + 2 * h + vector % 2);
        }
        return index;
    }
    // Word l of the result is block l / 2's scale; bytes 0-31 index a window of 128 bytes that
    // starts at block 0 for words 0-7 and at byte 128 for words 8-15.
    static constexpr std::array<uint8_t, 64> scale_words() {
        std::array<uint8_t, 64> index{};
        for (int i = 0; i < 32; ++i) {
            const int from = static_cast<int>(Q8_0Format::kBlockBytes) * (i / 4) + i % 2;
            index[i] = static_cast<uint8_t>(i < 16 ? from : from - 128);
        }
        return index;
    }
    static __m512i load_dwords(const std::array<uint32_t, 16>& index) {
        return _mm512_loadu_si512(index.data());
    }

    __m512i m_first = load_dwords(lane_index(0));
    __m512i m_second = load_dwords(lane_index(2));
    __m512i m_scales = load_index(scale_words());
};

// One token's activations for a group, loaded once for all the rows of a tile.
struct LoadedGroup {
    __m512i offsets, quants[4];
    __m512 scales;
};

template <int Shift>
[[gnu::always_inline]] inline LoadedGroup load_group(const LaneGroup& group) {
    LoadedGroup loaded;
    loaded.offsets = own_register(_mm512_slli_epi32(_mm512_loadu_si512(group.offsets), Shift));
#pragma GCC unroll 4
    for (int v = 0; v < 4; ++v)
        loaded.quants[v] = own_register(_mm512_loadu_si512(group.quants[v]));
    loaded.scales = _mm512_loadu_ps(group.scales);
    return loaded;
}

// Group g of R rows times K tokens, added to the (row, token) accumulators: per (row, token)
// four vpdpbusd from the lanes' offsets, one conversion and one FMA with the scales' product.
template <typename Format, int R, int K>
[[gnu::always_inline]] inline void add_group(const GridReader<Format>& reader,
                                             const uint8_t* const* rows,
                                             const std::array<const LaneGroup*, K>& groups,
                                             size_t g, size_t bytes, __m512 (&acc)[R][K]) {
    constexpr size_t kGroupBytes = Format::kGroupBytes;
    GridWeights unpacked[R];
#pragma GCC unroll 4
    for (int r = 0; r < R; ++r) {
        // The hardware prefetchers alone left the row kernels waiting on memory: with groups of
        // four blocks, one token from DRAM went from 35 to 31 GB/s without this, and two rows
        // read side by side, for four or eight tokens, 1.5 to 1.7 times slower (65536 x 2048
        // Q4_0, two threads).
        prefetch_bytes_ahead(rows[r] + g * kGroupBytes, kGroupBytes);
        unpacked[r] = reader.read(rows[r] + g * kGroupBytes, bytes);
    }
#pragma GCC unroll 8
    for (int t = 0; t < K; ++t) {
        const LoadedGroup group = load_group<Format::kShift>(groups[t][g]);
#pragma GCC unroll 4
        for (int r = 0; r < R; ++r) {
            __m512i sums = group.offsets;
#pragma GCC unroll 4
            for (int v = 0; v < 4; ++v)
                sums = _mm512_dpbusd_epi32(sums, unpacked[r].values[v], group.quants[v]);
            acc[r][t] =
                _mm512_fmadd_ps(_mm512_cvtepi32_ps(sums),
                                Format::scales(unpacked[r].scales, group.scales), acc[r][t]);
        }
    }
}

// R rows against K tokens, one accumulator per (row, token), its lanes summed at the end in a
// fixed tree: the single dot is this with one row and one token, so a (row, token)'s result
// never depends on the rows and tokens beside it.
template <typename Format, int R, int K>
[[gnu::always_inline]] inline void grid_tile(const GridReader<Format>& reader,
                                             const uint8_t* const* rows,
                                             const std::array<const LaneGroup*, K>& groups,
                                             size_t n, float* out, size_t out_stride) {
    constexpr size_t kGroupBytes = Format::kGroupBytes;
    const size_t blocks = n / 32, full = blocks / LaneGroup::kBlocks;
    const size_t rest = blocks - full * LaneGroup::kBlocks;
    __m512 acc[R][K];
#pragma GCC unroll 4
    for (int r = 0; r < R; ++r)
#pragma GCC unroll 8
        for (int t = 0; t < K; ++t) acc[r][t] = _mm512_setzero_ps();
    for (size_t g = 0; g < full; ++g)
        add_group<Format, R, K>(reader, rows, groups, g, kGroupBytes, acc);
    // The padded last group: its missing blocks have zero activations.
    if (rest != 0) {
        add_group<Format, R, K>(reader, rows, groups, full, rest * Format::kBlockBytes, acc);
    }
#pragma GCC unroll 4
    for (int r = 0; r < R; ++r) {
#pragma GCC unroll 8
        for (int t = 0; t < K; ++t)
            out[static_cast<size_t>(t) * out_stride + r] = sum_of(acc[r][t]);
    }
}

// K tokens against one row (dot_many.h): the row kernel's tile of one row.
template <typename Format, int K>
[[gnu::always_inline]] inline void grid_dot(const void* w, const TokenGroup<K>& tokens, size_t n) {
    const uint8_t* rows[1] = {static_cast<const uint8_t*>(w)};
    grid_tile<Format, 1, K>(GridReader<Format>{}, rows, activation_rows<LaneGroup>(tokens), n,
                            tokens.out, tokens.out_stride);
}

// The row kernel (DotRowsFunction) of a grid format: tokens in groups of eight, then the rest
// in one group of its own size (a verification pass of four drafts is five tokens: as four and
// one, the rows were unpacked and their sums reduced twice). Each group meets the rows two at a
// time, or one at a time for one or two tokens, which decode from memory: two rows read side by
// side measured 1.3 to 1.5 times slower there, and a lone token has no activation loads to share.
// Short rows pair up for any count (paired_rows).
//
// Rows this short are one stream side by side anyway, and a pair shares its activation loads and
// its loop overhead, which a row of two or three groups barely amortises alone: 576-column Q4_0
// (SmolLM's, 324 bytes a row) from DRAM, one token, 2400-2520 µs alone against 1990-2120 paired.
// From 768 columns (432 bytes) up, pairing gained nothing, and 1536 columns ran up to 1.6 times
// slower. In groups: rows of up to 2.75 groups pair, which keeps those Q4_0 bounds (396 bytes)
// and takes in Q8_0's 576 columns (612 bytes), whose head in SmolLM (32000 rows from L3, one
// token, one thread) took 797-811 µs alone and 769-810 paired.
template <typename Format>
bool paired_rows(size_t row_bytes) {
    return 4 * row_bytes <= 11 * Format::kGroupBytes;
}

template <typename Format>
void grid_rows(const void* weights, size_t row_bytes, size_t rows, const void* activations,
               size_t activation_stride, size_t tokens, float* out, size_t out_stride,
               size_t count) {
    const GridReader<Format> reader;
    const auto* first = static_cast<const std::byte*>(activations);
    size_t done = 0;
    const auto run = [&](auto size) {
        constexpr int K = decltype(size)::value;
        const size_t step = K > 2 || paired_rows<Format>(row_bytes) ? 2 : 1;
        const TokenGroup<K> group{first + done * activation_stride, activation_stride, nullptr, 0};
        const auto groups = activation_rows<LaneGroup>(group);
        for (size_t r = 0; r < rows; r += step) {
            const uint8_t* pair[2] = {static_cast<const uint8_t*>(weights) + r * row_bytes,
                                      static_cast<const uint8_t*>(weights) + (r + 1) * row_bytes};
            float* at = out + done * out_stride + r;
            if (step == 2 && rows - r >= 2) {
                grid_tile<Format, 2, K>(reader, pair, groups, count, at, out_stride);
            } else {
                grid_tile<Format, 1, K>(reader, pair, groups, count, at, out_stride);
            }
        }
        done += K;
    };
    while (tokens - done >= kTokenGroup) run(std::integral_constant<int, kTokenGroup>{});
    if (tokens > done) with_size<kTokenGroup - 1>(tokens - done, run);
}

constexpr auto q4_0 = []<int K>(const void* w, const TokenGroup<K>& tokens, size_t n) {
    grid_dot<Q4_0Format>(w, tokens, n);
};

constexpr auto q5_0 = []<int K>(const void* w, const TokenGroup<K>& tokens, size_t n) {
    grid_dot<Q5_0Format>(w, tokens, n);
};

constexpr auto iq4_nl = []<int K>(const void* w, const TokenGroup<K>& tokens, size_t n) {
    grid_dot<Iq4NlFormat>(w, tokens, n);
};

constexpr auto mxfp4 = []<int K>(const void* w, const TokenGroup<K>& tokens, size_t n) {
    grid_dot<Mxfp4Format>(w, tokens, n);
};

constexpr auto iq4_xs = []<int K>(const void* w, const TokenGroup<K>& tokens, size_t n) {
    grid_dot<Iq4XsFormat>(w, tokens, n);
};

constexpr auto q8_0 = []<int K>(const void* w, const TokenGroup<K>& tokens, size_t n) {
    grid_dot<Q8_0Format>(w, tokens, n);
};

}  // namespace

void set_grid_kernels(DotTable& table) {
    for (const int type : {kQ4_0, kQ5_0, kIQ4_NL, kMXFP4, kIQ4_XS, kQ8_0})
        table.format[type] = ActivationFormat::Q4_0Lanes;
    set_kernel<q4_0>(table, kQ4_0);
    set_kernel<q5_0>(table, kQ5_0);
    set_kernel<iq4_nl>(table, kIQ4_NL);
    set_kernel<mxfp4>(table, kMXFP4);
    set_kernel<iq4_xs>(table, kIQ4_XS);
    set_kernel<q8_0>(table, kQ8_0);
    table.dot_rows[kQ4_0] = grid_rows<Q4_0Format>;
    table.dot_rows[kQ5_0] = grid_rows<Q5_0Format>;
    table.dot_rows[kIQ4_NL] = grid_rows<Iq4NlFormat>;
    table.dot_rows[kMXFP4] = grid_rows<Mxfp4Format>;
    table.dot_rows[kIQ4_XS] = grid_rows<Iq4XsFormat>;
    table.dot_rows[kQ8_0] = grid_rows<Q8_0Format>;
}

}  // namespace hearth::kernels::vnni
