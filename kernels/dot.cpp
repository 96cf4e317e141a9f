#include "kernels/dot.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "kernels/activation_blocks.h"
#include "kernels/dot_variants.h"

namespace hearth::kernels {
namespace {

// The many-token entry of a format without a kernel for it: the single dot, token by token.
template <DotFunction Dot>
void dot_each(const void* weights, const void* activations, size_t activation_stride, size_t tokens,
              float* out, size_t out_stride, size_t count) {
    const auto* rows = static_cast<const std::byte*>(activations);
    for (size_t t = 0; t < tokens; ++t) {
        out[t * out_stride] = Dot(weights, rows + t * activation_stride, count);
    }
}

// A table entry served by one single-token dot.
template <DotFunction Dot>
void set_alone(DotTable& table, int type, ActivationFormat format) {
    table.dot[type] = Dot;
    table.dot_many[type] = dot_each<Dot>;
    table.dot_rows[type] = nullptr;
    table.format[type] = format;
}

DotTable scalar_table() {
    DotTable t;
    set_alone<scalar::dot_f32>(t, kF32, ActivationFormat::F32);
    set_alone<scalar::dot_f16>(t, kF16, ActivationFormat::F32);
    set_alone<scalar::dot_bf16>(t, kBF16, ActivationFormat::F32);
    set_alone<scalar::dot_q8_0>(t, kQ8_0, ActivationFormat::Q8);
    set_alone<scalar::dot_q4_0>(t, kQ4_0, ActivationFormat::Q8);
    set_alone<scalar::dot_q4_1>(t, kQ4_1, ActivationFormat::Q8);
    set_alone<scalar::dot_q5_0>(t, kQ5_0, ActivationFormat::Q8);
    set_alone<scalar::dot_q5_1>(t, kQ5_1, ActivationFormat::Q8);
    set_alone<scalar::dot_q4_k>(t, kQ4_K, ActivationFormat::Q8K);
    set_alone<scalar::dot_q5_k>(t, kQ5_K, ActivationFormat::Q8K);
    set_alone<scalar::dot_q6_k>(t, kQ6_K, ActivationFormat::Q8K);
    set_alone<scalar::dot_q2_k>(t, kQ2_K, ActivationFormat::Q8K);
    set_alone<scalar::dot_q3_k>(t, kQ3_K, ActivationFormat::Q8K);
    set_alone<scalar::dot_iq4_nl>(t, kIQ4_NL, ActivationFormat::Q8);
    set_alone<scalar::dot_iq4_xs>(t, kIQ4_XS, ActivationFormat::Q8K);
    set_alone<scalar::dot_mxfp4>(t, kMXFP4, ActivationFormat::Q8);
    return t;
}

#if defined(HEARTH_HAVE_AVX2_KERNELS)
DotTable avx2_table() {
    DotTable t = scalar_table();
    avx2::set_kernels(t);
    avx2::set_lookup_kernels(t);
    avx2::set_row_kernels(t);
    return t;
}

// Decode dots: Q4_0, Q5_0, IQ4_NL, IQ4_XS, MXFP4 and Q8_0 read eight blocks per 512-bit vector
// against lane groups (dot_grid_vnni.cpp); Q3_K, Q4_K and Q6_K read the AVX2 kernels' activations;
// the rest are the AVX2 ones. Each has a many-token kernel that equals its single dot bit for bit.
DotTable vnni_table() {
    DotTable t = avx2_table();
    vnni::set_grid_kernels(t);
    vnni::set_kernels(t);
    return t;
}
#endif

}  // namespace

// The scalar twin of a format's kernel in the activation layout that kernel reads.
DotFunction scalar_twin(const DotTable& table, int type) {
    if (table.format[type] == ActivationFormat::Q4_0Lanes) {
        if (type == kQ8_0) return scalar::dot_q8_0_lanes;
        if (type == kQ5_0) return scalar::dot_q5_0_lanes;
        if (type == kIQ4_NL) return scalar::dot_iq4_nl_lanes;
        if (type == kMXFP4) return scalar::dot_mxfp4_lanes;
        if (type == kIQ4_XS) return scalar::dot_iq4_xs_lanes;
        return scalar::dot_q4_0_lanes;
    }
    if (table.format[type] == ActivationFormat::Q8Offset) return scalar::dot_q4_0_offset;
    return scalar_table().dot[type];
}

Isa best_isa() {
    static const Isa isa = [] {
#if defined(HEARTH_HAVE_AVX2_KERNELS)
        __builtin_cpu_init();
        if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
            __builtin_cpu_supports("f16c")) {
            // VBMI's byte permutes pull the quants out of the files' odd-sized blocks, GFNI's
            // bit-matrix transform places Q3_K's high bits and BITALG's bit gather Q5_0's. Every
            // CPU with VBMI and VNNI so far (Ice Lake and later, Zen 4 and later) has both.
            const bool vnni =
                __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512vnni") &&
                __builtin_cpu_supports("avx512vbmi") && __builtin_cpu_supports("gfni") &&
                __builtin_cpu_supports("avx512bitalg");
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
        case ActivationFormat::Q8Offset:
            return count / 32 * sizeof(BlockQ8Offset);
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
        case ActivationFormat::Q8Offset:
            quantize_row_q8_offset(x, static_cast<BlockQ8Offset*>(out), count);
            return;
    }
}

}  // namespace hearth::kernels
