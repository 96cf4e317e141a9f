// F16C conversion of float rows to f16 (this file alone is compiled with F16C; half.cpp calls
// it only after the CPU confirmed it): round to nearest even, as float_to_half does.
#include <immintrin.h>

#include "kernels/half.h"

namespace hearth::kernels::f16c {

void floats_to_halves(const float* in, uint16_t* out, size_t count) {
    size_t i = 0;
    for (; i + 8 <= count; i += 8) {
        _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i),
                         _mm256_cvtps_ph(_mm256_loadu_ps(in + i), _MM_FROUND_TO_NEAREST_INT));
    }
    for (; i < count; ++i) out[i] = float_to_half(in[i]);
}

}  // namespace hearth::kernels::f16c
