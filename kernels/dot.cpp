#include "kernels/dot.h"

#include <algorithm>

#include "kernels/activation_blocks.h"
#include "kernels/dot_variants.h"

namespace hearth::kernels {
namespace {

// ggml type ids, as GGUF files store them.
enum TypeId {
    kF32 = 0,
    kF16 = 1,
    kQ4_0 = 2,
    kQ4_1 = 3,
    kQ5_0 = 6,
    kQ5_1 = 7,
    kQ8_0 = 8,
    kQ4_K = 12,
    kQ5_K = 13,
    kQ6_K = 14,
    kBF16 = 30
};

DotTable scalar_table() {
    DotTable t;
    const auto set = [&](int id, DotFunction f, ActivationFormat format) {
        t.dot[id] = f;
        t.format[id] = format;
    };
    set(kF32, scalar::dot_f32, ActivationFormat::F32);
    set(kF16, scalar::dot_f16, ActivationFormat::F32);
    set(kBF16, scalar::dot_bf16, ActivationFormat::F32);
    set(kQ8_0, scalar::dot_q8_0, ActivationFormat::Q8);
    set(kQ4_0, scalar::dot_q4_0, ActivationFormat::Q8);
    set(kQ4_1, scalar::dot_q4_1, ActivationFormat::Q8);
    set(kQ5_0, scalar::dot_q5_0, ActivationFormat::Q8);
    set(kQ5_1, scalar::dot_q5_1, ActivationFormat::Q8);
    set(kQ4_K, scalar::dot_q4_k, ActivationFormat::Q8K);
    set(kQ5_K, scalar::dot_q5_k, ActivationFormat::Q8K);
    set(kQ6_K, scalar::dot_q6_k, ActivationFormat::Q8K);
    return t;
}

#if defined(HEARTH_HAVE_AVX2_KERNELS)
DotTable avx2_table() {
    DotTable t = scalar_table();
    t.dot[kF32] = avx2::dot_f32;
    t.dot[kF16] = avx2::dot_f16;
    t.dot[kQ8_0] = avx2::dot_q8_0;
    t.dot[kQ4_0] = avx2::dot_q4_0;
    t.dot[kQ4_K] = avx2::dot_q4_k;
    t.dot[kQ6_K] = avx2::dot_q6_k;
    t.dot[kBF16] = avx2::dot_bf16;
    t.dot[kQ4_1] = avx2::dot_q4_1;
    t.dot[kQ5_0] = avx2::dot_q5_0;
    t.dot[kQ5_1] = avx2::dot_q5_1;
    t.dot[kQ5_K] = avx2::dot_q5_k;
    return t;
}
#endif

}  // namespace

Isa best_isa() {
    static const Isa isa = [] {
#if defined(HEARTH_HAVE_AVX2_KERNELS)
        __builtin_cpu_init();
        if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
            __builtin_cpu_supports("f16c")) {
            return Isa::Avx2;
        }
#endif
        return Isa::Scalar;
    }();
    return isa;
}

std::string_view isa_name(Isa isa) {
    return isa == Isa::Avx2 ? "AVX2" : "scalar";
}

const DotTable& dot_table(Isa isa) {
    static const DotTable scalar = scalar_table();
#if defined(HEARTH_HAVE_AVX2_KERNELS)
    static const DotTable avx2 = avx2_table();
    if (isa == Isa::Avx2) return avx2;
#endif
    return scalar;
}

AddScaledF16Function add_scaled_f16(Isa isa) {
#if defined(HEARTH_HAVE_AVX2_KERNELS)
    if (isa == Isa::Avx2) return avx2::add_scaled_f16;
#endif
    (void)isa;
    return scalar::add_scaled_f16;
}

size_t activation_row_bytes(ActivationFormat format, size_t count) {
    switch (format) {
        case ActivationFormat::F32:
            return count * sizeof(float);
        case ActivationFormat::Q8:
            return count / 32 * sizeof(BlockQ8);
        case ActivationFormat::Q8K:
            return count / 256 * sizeof(BlockQ8K);
    }
    return 0;
}

void prepare_activations(ActivationFormat format, const float* x, void* out, size_t count) {
    switch (format) {
        case ActivationFormat::F32:
            std::copy(x, x + count, static_cast<float*>(out));
            return;
        case ActivationFormat::Q8:
            quantize_row_q8(x, static_cast<BlockQ8*>(out), count);
            return;
        case ActivationFormat::Q8K:
            quantize_row_q8k(x, static_cast<BlockQ8K*>(out), count);
            return;
    }
}

}  // namespace hearth::kernels
