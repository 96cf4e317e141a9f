#include "kernels/half.h"

#include "kernels/dot.h"

#include <bit>
#include <cstring>

namespace hearth::kernels {

float half_to_float(uint16_t bits) {
    const uint32_t sign = static_cast<uint32_t>(bits & 0x8000u) << 16;
    const uint32_t exponent = (bits >> 10) & 0x1fu;
    uint32_t mantissa = bits & 0x3ffu;
    uint32_t word;
    if (exponent == 0x1f) {
        word = sign | 0x7f800000u | (mantissa << 13);
    } else if (exponent != 0) {
        word = sign | ((exponent + 112) << 23) | (mantissa << 13);
    } else if (mantissa == 0) {
        word = sign;
    } else {
        // Subnormal half: normalise it into a float exponent.
        int shift = 0;
        while ((mantissa & 0x400u) == 0) {
            mantissa <<= 1;
            ++shift;
        }
        mantissa &= 0x3ffu;
        word = sign | (static_cast<uint32_t>(113 - shift) << 23) | (mantissa << 13);
    }
    return std::bit_cast<float>(word);
}

uint16_t float_to_half(float value) {
    const uint32_t word = std::bit_cast<uint32_t>(value);
    const uint32_t sign = (word >> 16) & 0x8000u;
    const int32_t exponent = static_cast<int32_t>((word >> 23) & 0xffu);
    uint32_t mantissa = word & 0x7fffffu;
    if (exponent == 0xff) {
        return static_cast<uint16_t>(sign | 0x7c00u | (mantissa != 0 ? 0x200u : 0u));
    }
    int32_t half_exponent = exponent - 112;
    if (half_exponent >= 0x1f) return static_cast<uint16_t>(sign | 0x7c00u);
    if (half_exponent <= 0) {
        if (half_exponent < -10) return static_cast<uint16_t>(sign);
        mantissa |= 0x800000u;
        const uint32_t shift = static_cast<uint32_t>(14 - half_exponent);
        uint32_t half_mantissa = mantissa >> shift;
        const uint32_t remainder = mantissa & ((1u << shift) - 1);
        const uint32_t halfway = 1u << (shift - 1);
        if (remainder > halfway || (remainder == halfway && (half_mantissa & 1u))) ++half_mantissa;
        return static_cast<uint16_t>(sign | half_mantissa);
    }
    uint32_t half_bits = (static_cast<uint32_t>(half_exponent) << 10) | (mantissa >> 13);
    const uint32_t remainder = mantissa & 0x1fffu;
    // Rounding may carry into the exponent, which is exactly the right result (up to infinity).
    if (remainder > 0x1000u || (remainder == 0x1000u && (half_bits & 1u))) ++half_bits;
    return static_cast<uint16_t>(sign | half_bits);
}

uint16_t float_to_bfloat16(float value) {
    const uint32_t word = std::bit_cast<uint32_t>(value);
    if ((word & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((word >> 16) | 0x40u);
    const uint32_t rounding = 0x7fffu + ((word >> 16) & 1u);
    return static_cast<uint16_t>((word + rounding) >> 16);
}

#if defined(HEARTH_HAVE_AVX2_KERNELS)
namespace f16c {
void floats_to_halves(const float* in, uint16_t* out, size_t count);
}
#endif

void floats_to_halves(const float* in, uint16_t* out, size_t count) {
#if defined(HEARTH_HAVE_AVX2_KERNELS)
    if (best_isa() != Isa::Scalar) {  // every SIMD level includes F16C
        f16c::floats_to_halves(in, out, count);
        return;
    }
#endif
    for (size_t i = 0; i < count; ++i) out[i] = float_to_half(in[i]);
}

}  // namespace hearth::kernels
