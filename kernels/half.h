// Conversions between float and the 16-bit float formats stored in GGUF files.
#pragma once

#include <cstddef>
#include <cstdint>

namespace hearth::kernels {

// IEEE 754 binary16, including subnormals, infinities and NaN.
float half_to_float(uint16_t bits);
uint16_t float_to_half(float value);

// float_to_half over a row, bit for bit, with F16C where the CPU has it (the KV cache write).
void floats_to_halves(const float* in, uint16_t* out, size_t count);

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
