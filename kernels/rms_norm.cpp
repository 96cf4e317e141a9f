#include "kernels/rms_norm.h"

namespace hearth::kernels {

namespace scalar {

void rms_norm(const float* x, const float* weight, size_t count, float epsilon, float* out) {
    const auto square = [x](size_t i) { return static_cast<double>(x[i]) * x[i]; };
    double sums[8] = {};
    size_t i = 0;
    for (; i + 8 <= count; i += 8) {
        for (size_t lane = 0; lane < 8; ++lane) sums[lane] += square(i + lane);
    }
    double rest = 0.0;
    for (; i < count; ++i) rest += square(i);
    const float scale = rms_scale(sums, rest, count, epsilon);
    for (i = 0; i < count; ++i) out[i] = x[i] * scale * weight[i];
}

}  // namespace scalar

RmsNormFunction rms_norm(Isa isa) {
#if defined(HEARTH_HAVE_AVX2_KERNELS)
    if (isa != Isa::Scalar) return avx2::rms_norm;
#endif
    (void)isa;
    return scalar::rms_norm;
}

}  // namespace hearth::kernels
