#include "kernels/rope.h"

#include "kernels/dot.h"

namespace hearth::kernels {

void rope_rotate(RopePairing pairing, float* head, const float* cosines, const float* sines,
                 size_t pairs) {
#if defined(HEARTH_HAVE_AVX2_KERNELS)
    if (best_isa() != Isa::Scalar) {
        avx2::rope_rotate(pairing, head, cosines, sines, pairs);
        return;
    }
#endif
    scalar::rope_rotate(pairing, head, cosines, sines, pairs);
}

namespace scalar {

void rope_rotate(RopePairing pairing, float* head, const float* cosines, const float* sines,
                 size_t pairs) {
    rope_rotate_from(pairing, head, cosines, sines, 0, pairs);
}

void rope_rotate_from(RopePairing pairing, float* head, const float* cosines, const float* sines,
                      size_t first, size_t pairs) {
    for (size_t i = first; i < pairs; ++i) {
        const size_t a = pairing == RopePairing::Adjacent ? 2 * i : i;
        const size_t b = pairing == RopePairing::Adjacent ? 2 * i + 1 : i + pairs;
        const float x0 = head[a], x1 = head[b];
        head[a] = x0 * cosines[i] - x1 * sines[i];
        head[b] = x0 * sines[i] + x1 * cosines[i];
    }
}

}  // namespace scalar

}  // namespace hearth::kernels
