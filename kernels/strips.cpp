#include "kernels/strips.h"

#include <algorithm>

#include "kernels/amx.h"
#include "kernels/dot_variants.h"

namespace hearth::kernels {

namespace {

#if defined(HEARTH_HAVE_AVX2_KERNELS)
// Below ten tokens an AMX pass's fixed costs (the block unpacked into memory for the tile load,
// the products stored and loaded back) outweigh what its one tile product saves over VNNI's
// eight vpdpbusd a token. One thread, 5632 x 2048, µs a token, AMX against VNNI: eight tokens
// 70.9 against 56.4, ten 60.5 against 64.8 (a pass of eight and one of two), sixteen 49.3
// against 55.2.
constexpr size_t kFewestAmxTokens = 10;
constexpr size_t kMostAmxTokens = 16;  // a tile's rows

void q4_0_amx_then_vnni(const void* strip, size_t rows, const void* activations,
                        size_t activation_stride, size_t tokens, float* out, size_t out_stride,
                        size_t count) {
    const auto* first = static_cast<const std::byte*>(activations);
    size_t done = 0;
    while (tokens - done >= kFewestAmxTokens) {
        const size_t pass = std::min(kMostAmxTokens, tokens - done);
        amx::q4_0_strip_rows(strip, rows, first + done * activation_stride, activation_stride, pass,
                             out + done * out_stride, out_stride, count);
        done += pass;
    }
    if (done < tokens) {
        vnni::strip_rows(kQ4_0)(strip, rows, first + done * activation_stride, activation_stride,
                                tokens - done, out + done * out_stride, out_stride, count);
    }
}
#endif

}  // namespace

StripRowsFunction strip_rows_vnni(int type) {
#if defined(HEARTH_HAVE_AVX2_KERNELS)
    if (best_isa() >= Isa::Avx512Vnni) return vnni::strip_rows(type);
#endif
    (void)type;
    return nullptr;
}

StripRowsFunction strip_rows_amx(int type) {
#if defined(HEARTH_HAVE_AVX2_KERNELS)
    if (type == kQ4_0 && best_isa() >= Isa::Avx512Vnni && amx_int8_usable())
        return amx::q4_0_strip_rows;
#endif
    (void)type;
    return nullptr;
}

StripRowsFunction strip_rows(int type, Isa isa) {
    if (isa < Isa::Avx512Vnni) return nullptr;
#if defined(HEARTH_HAVE_AVX2_KERNELS)
    if (strip_rows_amx(type) != nullptr) return q4_0_amx_then_vnni;
#endif
    return strip_rows_vnni(type);
}

DotFunction strip_twin(int type) {
    switch (type) {
        case kQ4_0:
            return scalar::dot_q4_0_offset;
        case kIQ4_NL:
            return scalar::dot_iq4_nl_offset;
        case kIQ4_XS:
            return scalar::dot_iq4_xs_offset;
        case kQ3_K:
            return scalar::dot_q3_k_fma;
        default:
            return nullptr;
    }
}

ActivationFormat strip_activation_format(int type) {
    return type == kQ3_K ? ActivationFormat::Q8K : ActivationFormat::Q8Offset;
}

}  // namespace hearth::kernels
