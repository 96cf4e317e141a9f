#include "kernels/swiglu.h"

#include <cmath>

namespace hearth::kernels {

namespace scalar {

void swiglu(float* gate, const float* up, size_t count) {
    for (size_t i = 0; i < count; ++i) gate[i] = gate[i] / (1.0f + std::exp(-gate[i])) * up[i];
}

void geglu(float* gate, const float* up, size_t count) {
    for (size_t i = 0; i < count; ++i) {
        const float x = gate[i];
        const float twice_y = 2.0f * kGeluScale * (x + 0.044715f * x * x * x);
        gate[i] = x / (1.0f + std::exp(-twice_y)) * up[i];
    }
}

}  // namespace scalar

SwigluFunction swiglu(Isa isa) {
#if defined(HEARTH_HAVE_AVX2_KERNELS)
    if (isa != Isa::Scalar) return avx2::swiglu;
#endif
    (void)isa;
    return scalar::swiglu;
}

SwigluFunction geglu(Isa isa) {
#if defined(HEARTH_HAVE_AVX2_KERNELS)
    if (isa != Isa::Scalar) return avx2::geglu;
#endif
    (void)isa;
    return scalar::geglu;
}

}  // namespace hearth::kernels
