#include "kernels/swiglu.h"

#include <algorithm>
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

// A NaN gate or up value stays NaN (std::min and std::clamp return their first argument when
// it compares false), as the other gates' do.
void clamped_swiglu(float* gate, const float* up, size_t count) {
    for (size_t i = 0; i < count; ++i) {
        const float x = std::min(gate[i], kClampedSwigluLimit);
        const float y = std::clamp(up[i], -kClampedSwigluLimit, kClampedSwigluLimit);
        gate[i] = x / (1.0f + std::exp(-kClampedSwigluAlpha * x)) * (y + 1.0f);
    }
}

}  // namespace scalar

SwigluFunction swiglu(Isa isa) {
#if defined(HEARTH_HAVE_AVX2_KERNELS)
    if (isa == Isa::Avx512Vnni) return avx512::swiglu;
    if (isa != Isa::Scalar) return avx2::swiglu;
#endif
    (void)isa;
    return scalar::swiglu;
}

SwigluFunction geglu(Isa isa) {
#if defined(HEARTH_HAVE_AVX2_KERNELS)
    if (isa == Isa::Avx512Vnni) return avx512::geglu;
    if (isa != Isa::Scalar) return avx2::geglu;
#endif
    (void)isa;
    return scalar::geglu;
}

SwigluFunction clamped_swiglu(Isa isa) {
#if defined(HEARTH_HAVE_AVX2_KERNELS)
    if (isa == Isa::Avx512Vnni) return avx512::clamped_swiglu;
    if (isa != Isa::Scalar) return avx2::clamped_swiglu;
#endif
    (void)isa;
    return scalar::clamped_swiglu;
}

}  // namespace hearth::kernels
