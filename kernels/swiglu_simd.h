// The gates' SIMD body, included by one file per instruction set (swiglu_avx2.cpp,
// swiglu_avx512.cpp), each compiled with those instructions alone and chosen at run time. `Lanes`
// is simd_helpers' EightFloats or avx512_helpers' SixteenFloats; both run the same operations in
// every lane
// through simd_helpers' exp polynomial, so both give the same bits. Each function returns where
// its whole vectors end: the caller finishes the rest with a narrower gate.
#pragma once

#include <cstddef>

#include "kernels/swiglu.h"

namespace hearth::kernels {
namespace {

template <typename Lanes>
size_t swiglu_vectors(float* gate, const float* up, size_t count) {
    const auto one = Lanes::splat(1.0f), zero = Lanes::splat(0.0f);
    size_t i = 0;
    for (; i + Lanes::kLanes <= count; i += Lanes::kLanes) {
        const auto x = Lanes::load(gate + i);
        const auto silu = Lanes::divide(x, Lanes::add(one, Lanes::exp(Lanes::subtract(zero, x))));
        Lanes::store(gate + i, Lanes::multiply(silu, Lanes::load(up + i)));
    }
    return i;
}

template <typename Lanes>
size_t geglu_vectors(float* gate, const float* up, size_t count) {
    const auto one = Lanes::splat(1.0f);
    const auto minus_twice_scale = Lanes::splat(-2.0f * kGeluScale);
    const auto cubic = Lanes::splat(0.044715f);
    size_t i = 0;
    for (; i + Lanes::kLanes <= count; i += Lanes::kLanes) {
        const auto x = Lanes::load(gate + i);
        const auto inner = Lanes::multiply_add(Lanes::multiply(cubic, x), Lanes::multiply(x, x), x);
        const auto gelu = Lanes::divide(
            x, Lanes::add(one, Lanes::exp(Lanes::multiply(minus_twice_scale, inner))));
        Lanes::store(gate + i, Lanes::multiply(gelu, Lanes::load(up + i)));
    }
    return i;
}

// min and max take their second operand where either is NaN: the limits go first, so a NaN gate
// or up value stays NaN, as in the scalar twin.
template <typename Lanes>
size_t clamped_swiglu_vectors(float* gate, const float* up, size_t count) {
    const auto one = Lanes::splat(1.0f);
    const auto limit = Lanes::splat(kClampedSwigluLimit);
    const auto negative_limit = Lanes::splat(-kClampedSwigluLimit);
    const auto minus_alpha = Lanes::splat(-kClampedSwigluAlpha);
    size_t i = 0;
    for (; i + Lanes::kLanes <= count; i += Lanes::kLanes) {
        const auto x = Lanes::minimum(limit, Lanes::load(gate + i));
        const auto y = Lanes::maximum(negative_limit, Lanes::minimum(limit, Lanes::load(up + i)));
        const auto gated =
            Lanes::divide(x, Lanes::add(one, Lanes::exp(Lanes::multiply(minus_alpha, x))));
        Lanes::store(gate + i, Lanes::multiply(gated, Lanes::add(y, one)));
    }
    return i;
}

}  // namespace
}  // namespace hearth::kernels
