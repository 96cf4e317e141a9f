#include "kernels/dot.h"

#include <algorithm>
#include <stdexcept>
#include <string>

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
    kQ2_K = 10,
    kQ3_K = 11,
    kQ4_K = 12,
    kQ5_K = 13,
    kQ6_K = 14,
    kIQ4_NL = 20,
    kIQ4_XS = 23,
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
    set(kQ2_K, scalar::dot_q2_k, ActivationFormat::Q8K);
    set(kQ3_K, scalar::dot_q3_k, ActivationFormat::Q8K);
    set(kIQ4_NL, scalar::dot_iq4_nl, ActivationFormat::Q8);
    set(kIQ4_XS, scalar::dot_iq4_xs, ActivationFormat::Q8K);
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
    t.dot[kQ2_K] = avx2::dot_q2_k;
    t.dot[kQ3_K] = avx2::dot_q3_k;
    t.dot[kIQ4_NL] = avx2::dot_iq4_nl;
    t.dot[kIQ4_XS] = avx2::dot_iq4_xs;
    return t;
}

// Decode dots for the two most common formats read four (Q4_0) or two (Q8_0) blocks per 512-bit
// vector against activations laid out to match; the rest are the AVX2 ones.
DotTable vnni_table() {
    DotTable t = avx2_table();
    t.dot[kQ8_0] = vnni::dot_q8_0;
    t.dot[kQ4_0] = vnni::dot_q4_0;
    t.dot[kQ4_K] = vnni::dot_q4_k;
    t.format[kQ8_0] = ActivationFormat::PlanarQ8;
    t.format[kQ4_0] = ActivationFormat::Q4_0Lanes;
    return t;
}
#endif

}  // namespace

// The scalar twin of a format's kernel in the activation layout that kernel reads.
DotFunction scalar_twin(const DotTable& table, int type) {
    if (table.format[type] == ActivationFormat::PlanarQ8) return scalar::dot_q8_0_planar;
    if (table.format[type] == ActivationFormat::Q4_0Lanes) return scalar::dot_q4_0_lanes;
    return scalar_table().dot[type];
}

Isa best_isa() {
    static const Isa isa = [] {
#if defined(HEARTH_HAVE_AVX2_KERNELS)
        __builtin_cpu_init();
        if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
            __builtin_cpu_supports("f16c")) {
            // VBMI's byte permutes pull the quants out of the files' odd-sized blocks.
            const bool vnni =
                __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512vnni") &&
                __builtin_cpu_supports("avx512vbmi");
            return vnni ? Isa::Avx512Vnni : Isa::Avx2;
        }
#endif
        return Isa::Scalar;
    }();
    return isa;
}

std::string_view isa_name(Isa isa) {
    switch (isa) {
        case Isa::Avx512Vnni:
            return "AVX-512 VNNI";
        case Isa::Avx2:
            return "AVX2";
        case Isa::Scalar:
            break;
    }
    return "scalar";
}

Isa parse_isa(std::string_view name) {
    Isa isa;
    if (name == "scalar") {
        isa = Isa::Scalar;
    } else if (name == "avx2") {
        isa = Isa::Avx2;
    } else if (name == "avx512-vnni") {
        isa = Isa::Avx512Vnni;
    } else {
        throw std::invalid_argument("unknown instruction set '" + std::string(name) +
                                    "' (choose scalar, avx2 or avx512-vnni)");
    }
    if (isa > best_isa()) {
        throw std::invalid_argument("this CPU does not run " + std::string(isa_name(isa)) +
                                    " (it runs " + std::string(isa_name(best_isa())) + ")");
    }
    return isa;
}

const DotTable& dot_table(Isa isa) {
    static const DotTable scalar = scalar_table();
#if defined(HEARTH_HAVE_AVX2_KERNELS)
    static const DotTable avx2 = avx2_table();
    static const DotTable vnni = vnni_table();
    if (isa == Isa::Avx512Vnni) return vnni;
    if (isa == Isa::Avx2) return avx2;
#endif
    return scalar;
}

AddScaledF16Function add_scaled_f16(Isa isa) {
#if defined(HEARTH_HAVE_AVX2_KERNELS)
    if (isa != Isa::Scalar) return avx2::add_scaled_f16;
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
        case ActivationFormat::Q4_0Lanes:
            return lane_groups(count) * sizeof(LaneGroup);
        case ActivationFormat::PlanarQ8:
            return planar_q8_bytes(count);
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
        case ActivationFormat::Q4_0Lanes:
            quantize_row_q4_0_lanes(x, static_cast<LaneGroup*>(out), count);
            return;
        case ActivationFormat::PlanarQ8:
            quantize_row_planar_q8(x, out, count);
            return;
    }
}

}  // namespace hearth::kernels
