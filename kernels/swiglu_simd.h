// The gates' SIMD body, included by one file per instruction set (swiglu_avx2.cpp,
// swiglu_avx512.cpp), each compiled with those instructions alone and chosen at run time. `Lanes`
// names a vector of floats and its operations; both files run the same operations in every lane
// through simd_helpers' exp polynomial, so both give the same bits. Each function returns where
// its whole vectors end: the caller finishes the rest with a narrower gate.
#pragma once

#include <cstddef>

#include "kernels/swiglu.h"

namespace hearth::kernels {
namespace {

template <typename Lanes>
size_t swiglu_vectors(float* gate, const float* up, size_t count) {
    const auto one = Lanes::set(1.0f), zero = Lanes::set(0.0f);
    size_t i = 0;
    for (; i + Lanes::kWidth <= count; i += Lanes::kWidth) {
        const auto x = Lanes::load(gate + i);
        const auto silu = Lanes::div(x, Lanes::add(one, Lanes::exp(Lanes::sub(zero, x))));
        Lanes::store(gate + i, Lanes::mul(silu, Lanes::load(up + i)));
    }
    return i;
}

template <typename Lanes>
size_t geglu_vectors(float* gate, const float* up, size_t count) {
    const auto one = Lanes::set(1.0f);
    const auto minus_twice_scale = Lanes::set(-2.0f * kGeluScale);
    const auto cubic = Lanes::set(0.044715f);
    size_t i = 0;
    for (; i + Lanes::kWidth <= count; i += Lanes::kWidth) {
        const auto x = Lanes::load(gate + i);
        const auto inner = Lanes::fmadd(Lanes::mul(cubic, x), Lanes::mul(x, x), x);
        const auto gelu =
            Lanes::div(x, Lanes::add(one, Lanes::exp(Lanes::mul(minus_twice_scale, inner))));
        Lanes::store(gate + i, Lanes::mul(gelu, Lanes::load(up + i)));
    }
    return i;
}

// min and max take their second operand where either is NaN: the limits go first, so a NaN gate
// or up value stays NaN, as in the scalar twin.
template <typename Lanes>
size_t clamped_swiglu_vectors(float* gate, const float* up, size_t count) {
    const auto one = Lanes::set(1.0f);
    const auto limit = Lanes::set(kClampedSwigluLimit);
    const auto negative_limit = Lanes::set(-kClampedSwigluLimit);
    const auto minus_alpha = Lanes::set(-kClampedSwigluAlpha);
    size_t i = 0;
    for (; i + Lanes::kWidth <= count; i += Lanes::kWidth) {
        const auto x = Lanes::min(limit, Lanes::load(gate + i));
        const auto y = Lanes::max(negative_limit, Lanes::min(limit, Lanes::load(up + i)));
        const auto gated = Lanes::div(x, Lanes::add(one, Lanes::exp(Lanes::mul(minus_alpha, x))));
        Lanes::store(gate + i, Lanes::mul(gated, Lanes::add(y, one)));
    }
    return i;
}

}  // namespace
}  // namespace hearth::kernels
