#include "kernels/gemm.h"

#if defined(HEARTH_HAVE_AVX2_KERNELS)
#include "kernels/gemm_vnni.h"
#endif

namespace hearth::kernels {
namespace {

// ggml type ids of the formats with panel kernels.
enum TypeId {
    kQ4_0 = 2,
    kQ5_0 = 6,
    kQ8_0 = 8,
    kQ3_K = 11,
    kQ4_K = 12,
    kQ5_K = 13,
    kQ6_K = 14,
    kIQ4_NL = 20,
    kIQ4_XS = 23,
    kMXFP4 = 39
};

#if defined(HEARTH_HAVE_AVX2_KERNELS)
GemmTable vnni_table() {
    GemmTable table;
    table.gemm[kQ4_0] = vnni::gemm_q4_0;
    table.gemm[kQ5_0] = vnni::gemm_q5_0;
    table.gemm[kQ8_0] = vnni::gemm_q8_0;
    table.gemm[kQ3_K] = vnni::gemm_q3_k;
    table.gemm[kQ4_K] = vnni::gemm_q4_k;
    table.gemm[kQ5_K] = vnni::gemm_q5_k;
    table.gemm[kQ6_K] = vnni::gemm_q6_k;
    table.gemm[kIQ4_NL] = vnni::gemm_iq4_nl;
    table.gemm[kIQ4_XS] = vnni::gemm_iq4_xs;
    table.gemm[kMXFP4] = vnni::gemm_mxfp4;
    table.pack = vnni::pack;
    table.name = "AVX-512 VNNI";
    return table;
}
#endif

}  // namespace

const GemmTable* gemm_table(Isa isa) {
#if defined(HEARTH_HAVE_AVX2_KERNELS)
    static const GemmTable table = vnni_table();
    if (isa == Isa::Avx512Vnni) return &table;
#endif
    (void)isa;
    return nullptr;
}

}  // namespace hearth::kernels
