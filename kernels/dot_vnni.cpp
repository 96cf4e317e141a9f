// AVX-512 VNNI dot products for decode (this file alone is compiled with AVX-512; it runs only
// after best_isa() confirmed the CPU has it). Decode streams every weight once per token, so the
// work per weight byte must stay well under the time memory takes to deliver it. A 512-bit vector
// takes four Q4_0 (72 bytes) or two Q8_0 blocks (68 bytes) straight from the file: one byte
// permute pulls their quants together, another spreads their f16 scales over the lanes, and the
// activations come pre-arranged (Q4_0LaneGroup, Q8_0LaneGroup) so that two dpbusd, one
// conversion and one FMA finish the group, with no horizontal sums until the end of the row.
#include <immintrin.h>

#include <array>
#include <cstdint>

#include "kernels/activation_blocks.h"
#include "kernels/dot_variants.h"
#include "kernels/quant_blocks.h"
#include "kernels/simd_helpers.h"

namespace hearth::kernels::vnni {
namespace {

// For a format whose groups hold `blocks` blocks of `block_bytes` bytes with `quant_bytes` quant
// bytes each after a 2-byte scale: where byte i of the packed quants sits in the group's bytes.
constexpr std::array<uint8_t, 64> quant_index(int block_bytes, int quant_bytes) {
    std::array<uint8_t, 64> index{};
    for (int i = 0; i < 64; ++i)
        index[i] = static_cast<uint8_t>(block_bytes * (i / quant_bytes) + 2 + i % quant_bytes);
    return index;
}

// The bytes of sixteen f16 words, word l holding the scale of block l / (16 / blocks).
constexpr std::array<uint8_t, 64> scale_index(int block_bytes, int blocks) {
    std::array<uint8_t, 64> index{};
    for (int i = 0; i < 32; ++i)
        index[i] = static_cast<uint8_t>(block_bytes * (i / 2 / (16 / blocks)) + i % 2);
    return index;
}

template <typename BlockType, typename GroupType, int kQuantBytes>
struct LaneFormat {
    using Block = BlockType;
    using Group = GroupType;
    static constexpr auto kQuantIndex = quant_index(sizeof(Block), kQuantBytes);
    static constexpr auto kScaleIndex = scale_index(sizeof(Block), Group::kBlocks);
};

struct Q4_0Format : LaneFormat<BlockQ4_0, Q4_0LaneGroup, 16> {
    static __m512i integer_sum(__m512i quants, const Group& group) {
        const __m512i nibble = _mm512_set1_epi8(0x0f);
        const __m512i low = _mm512_and_si512(quants, nibble);
        const __m512i high = _mm512_and_si512(_mm512_srli_epi16(quants, 4), nibble);
        const __m512i sum = _mm512_dpbusd_epi32(_mm512_loadu_si512(group.offsets), low,
                                                _mm512_loadu_si512(group.low));
        return _mm512_dpbusd_epi32(sum, high, _mm512_loadu_si512(group.high));
    }
};

struct Q8_0Format : LaneFormat<BlockQ8_0, Q8_0LaneGroup, 32> {
    static __m512i integer_sum(__m512i quants, const Group& group) {
        const __m512i as_unsigned =
            _mm512_xor_si512(quants, _mm512_set1_epi8(static_cast<char>(0x80)));
        return _mm512_dpbusd_epi32(_mm512_loadu_si512(group.offsets), as_unsigned,
                                   _mm512_loadu_si512(group.quants));
    }
};

__mmask64 first_bytes(size_t count) {
    return count >= 64 ? ~__mmask64{0} : (__mmask64{1} << count) - 1;
}

template <typename Format>
class GroupReader {
public:
    GroupReader()
        : m_quants(_mm512_loadu_si512(Format::kQuantIndex.data())),
          m_scales(_mm512_loadu_si512(Format::kScaleIndex.data())) {}

    // acc += the group's products, lane by lane; `bytes` of weights are read (masked loads, so
    // a short last group reads nothing past the row).
    __m512 add(const uint8_t* weights, size_t bytes, const typename Format::Group& group,
               __m512 acc) const {
        const __m512i head = _mm512_maskz_loadu_epi8(first_bytes(bytes), weights);
        const __m512i tail =
            _mm512_maskz_loadu_epi8(first_bytes(bytes > 64 ? bytes - 64 : 0), weights + 64);
        const __m512i quants = _mm512_permutex2var_epi8(head, m_quants, tail);
        const __m256i halves = _mm512_castsi512_si256(_mm512_permutexvar_epi8(m_scales, head));
        const __m512 scales = _mm512_mul_ps(_mm512_cvtph_ps(halves), _mm512_loadu_ps(group.scales));
        return _mm512_fmadd_ps(_mm512_cvtepi32_ps(Format::integer_sum(quants, group)), scales, acc);
    }

private:
    __m512i m_quants, m_scales;
};

template <typename Format>
float dot(const void* w, const void* a, size_t n) {
    using Group = typename Format::Group;
    constexpr size_t kGroupBytes = Group::kBlocks * sizeof(typename Format::Block);
    const auto* weights = static_cast<const uint8_t*>(w);
    const auto* groups = static_cast<const Group*>(a);
    const size_t blocks = n / 32, full = blocks / Group::kBlocks;
    const GroupReader<Format> reader;
    // Two accumulators keep two groups' FMAs independent.
    __m512 even = _mm512_setzero_ps(), odd = _mm512_setzero_ps();
    size_t g = 0;
    for (; g + 2 <= full; g += 2) {
        even = reader.add(weights + g * kGroupBytes, kGroupBytes, groups[g], even);
        odd = reader.add(weights + (g + 1) * kGroupBytes, kGroupBytes, groups[g + 1], odd);
    }
    if (g < full) even = reader.add(weights + g * kGroupBytes, kGroupBytes, groups[g], even), ++g;
    const size_t rest = blocks - full * Group::kBlocks;
    if (rest != 0) {  // the padded last group: its missing blocks have zero activations
        odd = reader.add(weights + g * kGroupBytes, rest * sizeof(typename Format::Block),
                         groups[g], odd);
    }
    const __m512 sum = _mm512_add_ps(even, odd);
    const __m512 halves = _mm512_add_ps(sum, _mm512_shuffle_f32x4(sum, sum, 0x4e));
    return horizontal_sum(_mm512_castps512_ps256(halves));
}

// A byte permute that widens two unpacked scales to 16-bit words (the odd bytes are masked to
// zero): byte `first` into words 0-15, byte `second` into words 16-31.
constexpr std::array<uint8_t, 64> word_index(int first, int second) {
    std::array<uint8_t, 64> index{};
    for (int i = 0; i < 64; i += 2) index[i] = static_cast<uint8_t>(i < 32 ? first : second);
    return index;
}

constexpr __mmask64 kEvenBytes = 0x5555555555555555;

}  // namespace

float dot_q4_0(const void* w, const void* a, size_t n) {
    return dot<Q4_0Format>(w, a, n);
}

float dot_q8_0(const void* w, const void* a, size_t n) {
    return dot<Q8_0Format>(w, a, n);
}

}  // namespace hearth::kernels::vnni

namespace hearth::kernels::vnni {

// 64 bytes of Q4_K nibbles cover 128 elements: the low nibbles are sub-blocks 2c (bytes 0-31)
// and 2c + 2 (bytes 32-63), the high ones 2c + 1 and 2c + 3. The activations' 128-bit lanes are
// shuffled to match, u8 x s8 pairs summed to 16 bits, then multiplied by each lane's scale and
// summed to 32 bits in one vpdpwssd. Minimums meet the activation sums once per super-block.
float dot_q4_k(const void* w, const void* a, size_t n) {
    static constexpr std::array<uint8_t, 64> kPairs[4] = {word_index(0, 2), word_index(1, 3),
                                                          word_index(4, 6), word_index(5, 7)};
    static constexpr std::array<uint8_t, 64> kMinimums = [] {
        std::array<uint8_t, 64> index{};
        for (int i = 0; i < 32; i += 2) index[i] = static_cast<uint8_t>(8 + i / 4);
        return index;
    }();
    const auto* x = static_cast<const BlockQ4_K*>(w);
    const auto* y = static_cast<const BlockQ8K*>(a);
    const __m512i nibble = _mm512_set1_epi8(0x0f);
    __m512 acc = _mm512_setzero_ps();
    __m256 offsets = _mm256_setzero_ps();
    for (size_t b = 0; b < n / 256; ++b) {
        const __m512i unpacked = _mm512_castsi128_si512(k_scale_bytes(x[b].scales));
        __m512i sum = _mm512_setzero_si512();
#pragma GCC unroll 2
        for (int c = 0; c < 2; ++c) {
            const __m512i packed = _mm512_loadu_si512(x[b].quants + 64 * c);
            const __m512i first = _mm512_loadu_si512(y[b].quants + 128 * c);
            const __m512i second = _mm512_loadu_si512(y[b].quants + 128 * c + 64);
            const __m512i low = _mm512_and_si512(packed, nibble);
            const __m512i high = _mm512_and_si512(_mm512_srli_epi16(packed, 4), nibble);
            const __m512i low_scales = _mm512_maskz_permutexvar_epi8(
                kEvenBytes, _mm512_loadu_si512(kPairs[2 * c].data()), unpacked);
            const __m512i high_scales = _mm512_maskz_permutexvar_epi8(
                kEvenBytes, _mm512_loadu_si512(kPairs[2 * c + 1].data()), unpacked);
            sum = _mm512_dpwssd_epi32(
                sum, _mm512_maddubs_epi16(low, _mm512_shuffle_i64x2(first, second, 0x44)),
                low_scales);
            sum = _mm512_dpwssd_epi32(
                sum, _mm512_maddubs_epi16(high, _mm512_shuffle_i64x2(first, second, 0xee)),
                high_scales);
        }
        acc = _mm512_fmadd_ps(_mm512_set1_ps(_cvtsh_ss(x[b].scale) * y[b].scale),
                              _mm512_cvtepi32_ps(sum), acc);
        // Each minimum twice (one per 16-element activation sum), times those sums.
        const __m256i minimums = _mm512_castsi512_si256(_mm512_maskz_permutexvar_epi8(
            kEvenBytes, _mm512_loadu_si512(kMinimums.data()), unpacked));
        const __m256i products = _mm256_madd_epi16(minimums, load(y[b].sums));
        offsets = _mm256_fmadd_ps(_mm256_set1_ps(_cvtsh_ss(x[b].minimum) * y[b].scale),
                                  _mm256_cvtepi32_ps(products), offsets);
    }
    const __m512 halves = _mm512_add_ps(acc, _mm512_shuffle_f32x4(acc, acc, 0x4e));
    return horizontal_sum(_mm512_castps512_ps256(halves)) - horizontal_sum(offsets);
}

}  // namespace hearth::kernels::vnni
