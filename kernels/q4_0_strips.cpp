#include "kernels/q4_0_strips.h"

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

void amx_then_vnni(const StripBlock* strip, size_t rows, const void* activations,
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
        vnni::q4_0_strip_rows(strip, rows, first + done * activation_stride, activation_stride,
                              tokens - done, out + done * out_stride, out_stride, count);
    }
}
#endif

}  // namespace

StripRowsFunction q4_0_strip_rows_vnni() {
#if defined(HEARTH_HAVE_AVX2_KERNELS)
    if (best_isa() >= Isa::Avx512Vnni) return vnni::q4_0_strip_rows;
#endif
    return nullptr;
}

StripRowsFunction q4_0_strip_rows_amx() {
#if defined(HEARTH_HAVE_AVX2_KERNELS)
    if (best_isa() >= Isa::Avx512Vnni && amx_int8_usable()) return amx::q4_0_strip_rows;
#endif
    return nullptr;
}

StripRowsFunction q4_0_strip_rows(Isa isa) {
#if defined(HEARTH_HAVE_AVX2_KERNELS)
    if (isa < Isa::Avx512Vnni || best_isa() < Isa::Avx512Vnni) return nullptr;
    return amx_int8_usable() ? amx_then_vnni : vnni::q4_0_strip_rows;
#else
    (void)isa;
    return nullptr;
#endif
}

}  // namespace hearth::kernels
