#include "kernels/swiglu.h"

#include <cmath>

namespace hearth::kernels {

namespace scalar {

void swiglu(float* gate, const float* up, size_t count) {
    for (size_t i = 0; i < count; ++i) gate[i] = gate[i] / (1.0f + std::exp(-gate[i])) * up[i];
}

}  // namespace scalar

SwigluFunction swiglu(Isa isa) {
#if defined(HEARTH_HAVE_AVX2_KERNELS)
    if (isa != Isa::Scalar) return avx2::swiglu;
#endif
    (void)isa;
    return scalar::swiglu;
}

}  // namespace hearth::kernels
