// The scalar twins: plain loops that define what every SIMD dot product must compute.
#include <cmath>
#include <cstring>

#include "kernels/activation_blocks.h"
#include "kernels/dot_variants.h"
#include "kernels/half.h"
#include "kernels/quant_blocks.h"

namespace hearth::kernels::scalar {
namespace {

template <typename Block>
const Block* as(const void* p) {
    return static_cast<const Block*>(p);
}

int32_t int_dot(const int8_t* a, const int8_t* b, int n) {
    int32_t sum = 0;
    for (int i = 0; i < n; ++i) sum += a[i] * b[i];
    return sum;
}

// Unpacks a 32-element 4/5-bit block into signed or unsigned integers in element order.
void unpack_low_bits(const uint8_t* quants, uint32_t high, bool has_high, int offset, int8_t* out) {
    for (int j = 0; j < 16; ++j) {
        int low = quants[j] & 0x0f, upper = quants[j] >> 4;
        if (has_high) {
            low |= ((high >> j) & 1) << 4;
            upper |= ((high >> (j + 16)) & 1) << 4;
        }
        out[j] = static_cast<int8_t>(low - offset);
        out[j + 16] = static_cast<int8_t>(upper - offset);
    }
}

// The 32 grid values of a block's 16 bytes of indices, laid out as Q4_0's nibbles.
void lookup_values(const int8_t* grid, const uint8_t* quants, int8_t* out) {
    for (int j = 0; j < 16; ++j) {
        out[j] = grid[quants[j] & 0x0f];
        out[j + 16] = grid[quants[j] >> 4];
    }
}

void iq4_values(const uint8_t* quants, int8_t* out) {
    lookup_values(kIq4Values, quants, out);
}

uint32_t high_bits(const uint8_t* bytes) {
    uint32_t word;
    std::memcpy(&word, bytes, 4);
    return word;
}

// The f16 scale most 32-element formats keep.
template <typename Block>
float f16_scale(const Block& block) {
    return half_to_float(block.scale);
}

// A format of 32-element blocks with one scale (`scale_of` a block) and no offset, whose
// `unpack` writes a block's 32 signed integers: the sum of scale * (integers . activations).
template <typename Block, typename Unpack, typename Scale = float (*)(const Block&)>
float dot_symmetric_32(const void* w, const void* a, size_t n, Unpack unpack,
                       Scale scale_of = f16_scale<Block>) {
    float sum = 0.0f;
    int8_t q[32];
    for (size_t b = 0; b < n / 32; ++b) {
        const auto& x = as<Block>(w)[b];
        const auto& y = as<BlockQ8>(a)[b];
        unpack(x, q);
        sum += scale_of(x) * y.scale * static_cast<float>(int_dot(q, y.quants, 32));
    }
    return sum;
}

}  // namespace

float dot_f32(const void* w, const void* a, size_t n) {
    const auto* x = static_cast<const float*>(w);
    const auto* y = static_cast<const float*>(a);
    float sum = 0.0f;
    for (size_t i = 0; i < n; ++i) sum += x[i] * y[i];
    return sum;
}

float dot_f16(const void* w, const void* a, size_t n) {
    const auto* x = static_cast<const uint16_t*>(w);
    const auto* y = static_cast<const float*>(a);
    float sum = 0.0f;
    for (size_t i = 0; i < n; ++i) sum += half_to_float(x[i]) * y[i];
    return sum;
}

void add_scaled_f16(float scale, const uint16_t* v, float* out, size_t n) {
    for (size_t i = 0; i < n; ++i) out[i] += scale * half_to_float(v[i]);
}

float dot_bf16(const void* w, const void* a, size_t n) {
    const auto* x = static_cast<const uint16_t*>(w);
    const auto* y = static_cast<const float*>(a);
    float sum = 0.0f;
    for (size_t i = 0; i < n; ++i) sum += bfloat16_to_float(x[i]) * y[i];
    return sum;
}

float dot_q8_0(const void* w, const void* a, size_t n) {
    float sum = 0.0f;
    for (size_t b = 0; b < n / 32; ++b) {
        const auto& x = as<BlockQ8_0>(w)[b];
        const auto& y = as<BlockQ8>(a)[b];
        sum +=
            half_to_float(x.scale) * y.scale * static_cast<float>(int_dot(x.quants, y.quants, 32));
    }
    return sum;
}

float dot_q4_0(const void* w, const void* a, size_t n) {
    return dot_symmetric_32<BlockQ4_0>(
        w, a, n, [](const BlockQ4_0& x, int8_t* q) { unpack_low_bits(x.quants, 0, false, 8, q); });
}

// What the AVX2 row kernels compute for each (row, token), operation for operation: per block,
// the exact integer dot of the unsigned nibbles less the activations' offset, then one fused
// multiply-add of it with the product of the two scales into a single float sum.
float dot_q4_0_offset(const void* w, const void* a, size_t n) {
    float sum = 0.0f;
    for (size_t b = 0; b < n / 32; ++b) {
        const auto& x = as<BlockQ4_0>(w)[b];
        const auto& y = as<BlockQ8Offset>(a)[b];
        int32_t total = -y.offset;
        for (int j = 0; j < 32; ++j) total += q4_0_nibble(x, j) * y.quants[j];
        sum = std::fma(half_to_float(x.scale) * y.scale, static_cast<float>(total), sum);
    }
    return sum;
}

namespace {

// One 32-element block of IQ4 indices (16 bytes, laid out as Q4_0's nibbles) with weight scale
// `scale`, added to `sum` as the strip kernels add it: the exact integer dot, then one fused
// multiply-add with the product of the two scales. The kernels add the grid biased by 128 and take
// 16 times the offset back out, which leaves the same exact integer as this plain sum.
float add_iq4_block(const uint8_t* quants, float scale, const BlockQ8Offset& y, float sum) {
    int8_t values[32];
    iq4_values(quants, values);
    return std::fma(scale * y.scale, static_cast<float>(int_dot(values, y.quants, 32)), sum);
}

}  // namespace

// The strip kernels' IQ4_NL (strips.h): dot_q4_0_offset's operations, the values looked up in the
// grid.
float dot_iq4_nl_offset(const void* w, const void* a, size_t n) {
    float sum = 0.0f;
    for (size_t b = 0; b < n / 32; ++b) {
        const auto& x = as<BlockIQ4_NL>(w)[b];
        sum = add_iq4_block(x.quants, half_to_float(x.scale), as<BlockQ8Offset>(a)[b], sum);
    }
    return sum;
}

// The strip kernels' IQ4_XS: each sub-block as an IQ4_NL block whose scale is the super-block's
// times the sub-block's (exact in a float: an f16 times a 6-bit integer).
float dot_iq4_xs_offset(const void* w, const void* a, size_t n) {
    float sum = 0.0f;
    for (size_t b = 0; b < n / 32; ++b) {
        const auto& x = as<BlockIQ4_XS>(w)[b / 8];
        const int sub = static_cast<int>(b % 8);
        const float scale =
            half_to_float(x.scale) * static_cast<float>(unpack_scale_iq4_xs(sub, x));
        sum = add_iq4_block(x.quants + 16 * sub, scale, as<BlockQ8Offset>(a)[b], sum);
    }
    return sum;
}

// What the AVX-512 grid kernels (dot_grid_vnni.cpp) compute, operation for operation. Each group
// of eight 32-element blocks fills 16 lanes, two per block (LaneGroup): the lane's exact integer
// sum of 16 products (the activations' offsets in it, for Q4_0's unsigned nibbles), converted
// and fused-multiplied with the two scales' product into the lane's accumulator, whose lanes are
// summed at the end in the kernels' fixed tree. lane_sum(b, group, k, h) and scale_of(b) give
// block b's (the k-th of its group) integer sum for lane 2k + h and its weight scale.
template <typename LaneSum, typename Scale>
float dot_lanes(const void* a, size_t n, LaneSum lane_sum, Scale scale_of) {
    const size_t blocks = n / 32;
    float acc[16] = {};
    for (size_t g = 0; g * LaneGroup::kBlocks < blocks; ++g) {
        const auto& group = as<LaneGroup>(a)[g];
        for (size_t lane = 0; lane < 16; ++lane) {
            const size_t k = lane / 2, b = g * LaneGroup::kBlocks + k;
            // A padded block's weights read as zeros and its activations are zeros: it adds +0.
            if (b >= blocks) continue;
            const int32_t total = lane_sum(b, group, k, lane % 2);
            const float scale = scale_of(b) * group.scales[lane];
            acc[lane] = std::fma(static_cast<float>(total), scale, acc[lane]);
        }
    }
    float halves[8], quarters[4];
    for (int i = 0; i < 8; ++i) halves[i] = acc[i] + acc[i + 8];
    for (int i = 0; i < 4; ++i) quarters[i] = halves[i] + halves[i + 4];
    return (quarters[0] + quarters[2]) + (quarters[1] + quarters[3]);
}

// Lane 2k + h of a group: block k's signed values `q` (in element order) times the activations,
// over the 16 elements the lane holds (elements 8h..8h+7 and 16+8h..16+8h+7).
int32_t lane_dot(const int8_t* q, const LaneGroup& group, size_t k, size_t h) {
    int32_t total = 0;
    for (size_t i = 0; i < 8; ++i) {
        for (const size_t e : {8 * h + i, 16 + 8 * h + i}) {
            const LanePlace place = lane_place(k, e);
            total += q[e] * group.quants[place.vector][place.at];
        }
    }
    return total;
}

float dot_q4_0_lanes(const void* w, const void* a, size_t n) {
    const auto* x = as<BlockQ4_0>(w);
    const auto nibbles = [x](size_t b, const LaneGroup& group, size_t k, size_t h) {
        int8_t q[32];
        unpack_low_bits(x[b].quants, 0, false, 0, q);
        return lane_dot(q, group, k, h) + group.offsets[2 * k + h];
    };
    return dot_lanes(a, n, nibbles, [x](size_t b) { return f16_scale(x[b]); });
}

// Q8_0 in lane groups: its signed quants' exact lane sums, which the kernel reaches by way of
// the quants read unsigned (+128) and the offsets.
float dot_q8_0_lanes(const void* w, const void* a, size_t n) {
    const auto* x = as<BlockQ8_0>(w);
    const auto quants = [x](size_t b, const LaneGroup& group, size_t k, size_t h) {
        return lane_dot(x[b].quants, group, k, h);
    };
    return dot_lanes(a, n, quants, [x](size_t b) { return f16_scale(x[b]); });
}

// Q5_0 in lane groups: its signed values' exact lane sums, which the kernel reaches by way of
// unsigned values and the offsets.
float dot_q5_0_lanes(const void* w, const void* a, size_t n) {
    const auto* x = as<BlockQ5_0>(w);
    const auto values = [x](size_t b, const LaneGroup& group, size_t k, size_t h) {
        int8_t q[32];
        unpack_low_bits(x[b].quants, high_bits(x[b].high_bits), true, 16, q);
        return lane_dot(q, group, k, h);
    };
    return dot_lanes(a, n, values, [x](size_t b) { return f16_scale(x[b]); });
}

// IQ4_NL, MXFP4 and IQ4_XS in lane groups: the kernel reaches each lane's exact integer dot of
// the grid's signed values with the activations by way of biased unsigned values and the
// offsets. `quants(b)` gives block b's 16 bytes of indices.
template <typename Quants, typename Scale>
float dot_grid_lanes(const void* a, size_t n, const int8_t (&grid)[16], Quants quants,
                     Scale scale_of) {
    const auto values = [&](size_t b, const LaneGroup& group, size_t k, size_t h) {
        int8_t q[32];
        lookup_values(grid, quants(b), q);
        return lane_dot(q, group, k, h);
    };
    return dot_lanes(a, n, values, scale_of);
}

float dot_iq4_nl_lanes(const void* w, const void* a, size_t n) {
    const auto* x = as<BlockIQ4_NL>(w);
    return dot_grid_lanes(
        a, n, kIq4Values, [x](size_t b) { return x[b].quants; },
        [x](size_t b) { return f16_scale(x[b]); });
}

float dot_mxfp4_lanes(const void* w, const void* a, size_t n) {
    const auto* x = as<BlockMXFP4>(w);
    return dot_grid_lanes(
        a, n, kMxfp4Values, [x](size_t b) { return x[b].quants; },
        [x](size_t b) { return mxfp4_scale(x[b].exponent); });
}

// IQ4_XS: 32-element block b is sub-block b % 8 of super-block b / 8, its scale d times the
// sub-block's (exact in a float).
float dot_iq4_xs_lanes(const void* w, const void* a, size_t n) {
    const auto* x = as<BlockIQ4_XS>(w);
    return dot_grid_lanes(
        a, n, kIq4Values, [x](size_t b) { return x[b / 8].quants + 16 * (b % 8); },
        [x](size_t b) {
            return half_to_float(x[b / 8].scale) *
                   static_cast<float>(unpack_scale_iq4_xs(static_cast<int>(b % 8), x[b / 8]));
        });
}

float dot_q4_1(const void* w, const void* a, size_t n) {
    float sum = 0.0f;
    int8_t q[32];
    for (size_t b = 0; b < n / 32; ++b) {
        const auto& x = as<BlockQ4_1>(w)[b];
        const auto& y = as<BlockQ8>(a)[b];
        unpack_low_bits(x.quants, 0, false, 0, q);
        sum += half_to_float(x.scale) * y.scale * static_cast<float>(int_dot(q, y.quants, 32)) +
               half_to_float(x.minimum) * y.scaled_sum;
    }
    return sum;
}

float dot_q5_0(const void* w, const void* a, size_t n) {
    return dot_symmetric_32<BlockQ5_0>(w, a, n, [](const BlockQ5_0& x, int8_t* q) {
        unpack_low_bits(x.quants, high_bits(x.high_bits), true, 16, q);
    });
}

float dot_q5_1(const void* w, const void* a, size_t n) {
    float sum = 0.0f;
    int8_t q[32];
    for (size_t b = 0; b < n / 32; ++b) {
        const auto& x = as<BlockQ5_1>(w)[b];
        const auto& y = as<BlockQ8>(a)[b];
        unpack_low_bits(x.quants, high_bits(x.high_bits), true, 0, q);
        sum += half_to_float(x.scale) * y.scale * static_cast<float>(int_dot(q, y.quants, 32)) +
               half_to_float(x.minimum) * y.scaled_sum;
    }
    return sum;
}

// Q4_K and Q5_K: 8 sub-blocks of 32 with 6-bit scales and minimums; the minimums multiply the
// activation sums, so only the scaled quants need an integer dot product.
template <typename Block>
float dot_k_quant(const void* w, const void* a, size_t n) {
    float sum = 0.0f;
    for (size_t b = 0; b < n / 256; ++b) {
        const auto& x = as<Block>(w)[b];
        const auto& y = as<BlockQ8K>(a)[b];
        int32_t scaled = 0, offsets = 0;
        for (int j = 0; j < 8; ++j) {
            uint8_t scale, minimum;
            unpack_scale_min_k4(j, x.scales, scale, minimum);
            int32_t dot = 0;
            for (int l = 0; l < 32; ++l) dot += k_quant_value(x, j, l) * y.quants[32 * j + l];
            scaled += scale * dot;
            offsets += minimum * (y.sums[2 * j] + y.sums[2 * j + 1]);
        }
        sum += half_to_float(x.scale) * y.scale * static_cast<float>(scaled) -
               half_to_float(x.minimum) * y.scale * static_cast<float>(offsets);
    }
    return sum;
}

float dot_q4_k(const void* w, const void* a, size_t n) {
    return dot_k_quant<BlockQ4_K>(w, a, n);
}
float dot_q5_k(const void* w, const void* a, size_t n) {
    return dot_k_quant<BlockQ5_K>(w, a, n);
}

float dot_q6_k(const void* w, const void* a, size_t n) {
    float sum = 0.0f;
    for (size_t b = 0; b < n / 256; ++b) {
        const auto& x = as<BlockQ6_K>(w)[b];
        const auto& y = as<BlockQ8K>(a)[b];
        int32_t total = 0;
        for (int half = 0; half < 2; ++half) {
            const uint8_t* low = x.low_bits + 64 * half;
            const uint8_t* high = x.high_bits + 32 * half;
            const int8_t* scales = x.scales + 8 * half;
            const int8_t* q8 = y.quants + 128 * half;
            for (int l = 0; l < 32; ++l) {
                const int sub = l / 16;
                const int q1 = ((low[l] & 0x0f) | ((high[l] >> 0 & 3) << 4)) - 32;
                const int q2 = ((low[l + 32] & 0x0f) | ((high[l] >> 2 & 3) << 4)) - 32;
                const int q3 = ((low[l] >> 4) | ((high[l] >> 4 & 3) << 4)) - 32;
                const int q4 = ((low[l + 32] >> 4) | ((high[l] >> 6 & 3) << 4)) - 32;
                total += scales[sub] * q1 * q8[l] + scales[sub + 2] * q2 * q8[l + 32] +
                         scales[sub + 4] * q3 * q8[l + 64] + scales[sub + 6] * q4 * q8[l + 96];
            }
        }
        sum += half_to_float(x.scale) * y.scale * static_cast<float>(total);
    }
    return sum;
}

// Q2_K: sub-block i's value is d * scale_i * q - dmin * minimum_i; the minimums multiply the
// activation sums per 16, so only the quants need an integer dot product.
float dot_q2_k(const void* w, const void* a, size_t n) {
    float sum = 0.0f;
    for (size_t b = 0; b < n / 256; ++b) {
        const auto& x = as<BlockQ2_K>(w)[b];
        const auto& y = as<BlockQ8K>(a)[b];
        int32_t scaled = 0, offsets = 0;
        for (int sub = 0; sub < 16; ++sub) {
            int32_t dot = 0;
            for (int i = 16 * sub; i < 16 * sub + 16; ++i) {
                dot += two_bit_quant(x.quants, i) * y.quants[i];
            }
            scaled += (x.scales[sub] & 0x0f) * dot;
            offsets += (x.scales[sub] >> 4) * y.sums[sub];
        }
        sum += half_to_float(x.scale) * y.scale * static_cast<float>(scaled) -
               half_to_float(x.minimum) * y.scale * static_cast<float>(offsets);
    }
    return sum;
}

namespace {

// A Q3_K super-block's exact integer dot with a BlockQ8K: each sub-block's times its scale.
int32_t q3_k_total(const BlockQ3_K& x, const BlockQ8K& y) {
    int32_t total = 0;
    for (int sub = 0; sub < 16; ++sub) {
        int32_t dot = 0;
        for (int i = 16 * sub; i < 16 * sub + 16; ++i) dot += q3_k_value(x, i) * y.quants[i];
        total += unpack_scale_q3_k(sub, x.scales) * dot;
    }
    return total;
}

}  // namespace

float dot_q3_k(const void* w, const void* a, size_t n) {
    float sum = 0.0f;
    for (size_t b = 0; b < n / 256; ++b) {
        const auto& x = as<BlockQ3_K>(w)[b];
        const auto& y = as<BlockQ8K>(a)[b];
        sum += half_to_float(x.scale) * y.scale * static_cast<float>(q3_k_total(x, y));
    }
    return sum;
}

// The strip kernels' Q3_K (strips.h): dot_q3_k's exact integer per super-block, added with one
// fused multiply-add of it and the two scales' product, as each strip lane adds it.
float dot_q3_k_fma(const void* w, const void* a, size_t n) {
    float sum = 0.0f;
    for (size_t b = 0; b < n / 256; ++b) {
        const auto& x = as<BlockQ3_K>(w)[b];
        const auto& y = as<BlockQ8K>(a)[b];
        sum = std::fma(half_to_float(x.scale) * y.scale, static_cast<float>(q3_k_total(x, y)), sum);
    }
    return sum;
}

float dot_iq4_nl(const void* w, const void* a, size_t n) {
    return dot_symmetric_32<BlockIQ4_NL>(
        w, a, n, [](const BlockIQ4_NL& x, int8_t* q) { iq4_values(x.quants, q); });
}

float dot_iq4_xs(const void* w, const void* a, size_t n) {
    float sum = 0.0f;
    int8_t q[32];
    for (size_t b = 0; b < n / 256; ++b) {
        const auto& x = as<BlockIQ4_XS>(w)[b];
        const auto& y = as<BlockQ8K>(a)[b];
        int32_t total = 0;
        for (int sub = 0; sub < 8; ++sub) {
            iq4_values(x.quants + 16 * sub, q);
            total += unpack_scale_iq4_xs(sub, x) * int_dot(q, y.quants + 32 * sub, 32);
        }
        sum += half_to_float(x.scale) * y.scale * static_cast<float>(total);
    }
    return sum;
}

// MXFP4 meets the same Q8 blocks as IQ4_NL (as in ggml): its doubled E2M1 values are integers,
// and the halved power of two takes the f16 scale's place.
float dot_mxfp4(const void* w, const void* a, size_t n) {
    return dot_symmetric_32<BlockMXFP4>(
        w, a, n, [](const BlockMXFP4& x, int8_t* q) { lookup_values(kMxfp4Values, x.quants, q); },
        [](const BlockMXFP4& x) { return mxfp4_scale(x.exponent); });
}

}  // namespace hearth::kernels::scalar
