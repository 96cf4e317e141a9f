// Conversions between float and the 16-bit float formats stored in GGUF files.
#pragma once

#include <cstdint>

namespace hearth::kernels {

// IEEE 754 binary16, including subnormals, infinities and NaN.
float half_to_float(uint16_t bits);
uint16_t float_to_half(float value);

// bfloat16 is the upper half of a float32.
inline float bfloat16_to_float(uint16_t bits) {
    const uint32_t word = static_cast<uint32_t>(bits) << 16;
    float value;
    __builtin_memcpy(&value, &word, sizeof value);
    return value;
}

// Round to nearest even, keeping NaN a NaN.
uint16_t float_to_bfloat16(float value);

}  // namespace hearth::kernels
