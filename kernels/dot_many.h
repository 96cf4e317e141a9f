// How the many-token dot kernels (DotManyFunction) are built: a kernel is written once for a
// group of K token rows known at compile time, each token keeping the exact operations and
// order of the single-token kernel, which is the same code with K = 1. The weights are unpacked
// once per group; only the per-token products and sums repeat.
//
// An unnamed namespace, as in simd_helpers.h: the templates are instantiated in files compiled
// for different instruction sets, and the linker must not merge them.
#pragma once

#include <array>
#include <cstddef>
#include <type_traits>

#include "kernels/dot.h"

namespace hearth::kernels {
namespace {

// The largest group one kernel pass takes. Eight ran about 5% faster per token than four on an
// AVX2 Zen 4 (Q4_0, Q4_K): the unpacking shared by more tokens outweighs the accumulators that
// no longer fit in the sixteen vector registers.
inline constexpr int kTokenGroup = 8;

// Calls run(std::integral_constant<int, K>{}) for K = size, 1 <= size <= Most: a kernel compiled
// for each group size.
template <int Most, typename Run>
void with_size(size_t size, const Run& run) {
    if (size == Most) {
        run(std::integral_constant<int, Most>{});
    } else if constexpr (Most > 1) {
        with_size<Most - 1>(size, run);
    }
}

// Passes over `tokens`: whole passes of Most, then one of what is left, each compiled for its
// size: run(std::integral_constant<int, K>{}, first token of the pass).
template <int Most, typename Run>
void in_passes(size_t tokens, const Run& run) {
    size_t done = 0;
    for (; tokens - done >= Most; done += Most) run(std::integral_constant<int, Most>{}, done);
    if (tokens > done) with_size<Most - 1>(tokens - done, [&](auto size) { run(size, done); });
}

// K token rows of prepared activations and where their K results go.
template <int K>
struct TokenGroup {
    const std::byte* first;  // token t's activations start at first + t * stride bytes
    size_t stride;
    float* out;  // token t's result goes to out[t * out_stride]
    size_t out_stride;

    void put(int t, float value) const { out[static_cast<size_t>(t) * out_stride] = value; }
};

// The group's K activation rows, read as blocks of one activation format.
template <typename Block, int K>
std::array<const Block*, K> activation_rows(const TokenGroup<K>& group) {
    std::array<const Block*, K> rows;
    for (int t = 0; t < K; ++t) {
        rows[t] =
            reinterpret_cast<const Block*>(group.first + static_cast<size_t>(t) * group.stride);
    }
    return rows;
}

// The single-token DotFunction of a kernel, with the kernel inlined: a second call per row cost
// single-token decode a few percent.
template <auto Kernel>
[[gnu::flatten]] float dot_one(const void* weights, const void* activations, size_t count) {
    float result = 0.0f;
    Kernel(weights, TokenGroup<1>{static_cast<const std::byte*>(activations), 0, &result, 0},
           count);
    return result;
}

// The DotManyFunction of a kernel: whole groups, then what is left in halving groups (7 is
// 4 + 2 + 1, the last token through the single-token dot itself), so every pass runs a kernel
// compiled for exactly its number of tokens.
template <auto Kernel>
void dot_groups(const void* weights, const void* activations, size_t activation_stride,
                size_t tokens, float* out, size_t out_stride, size_t count) {
    const auto* rows = static_cast<const std::byte*>(activations);
    size_t done = 0;
    const auto run = [&](auto size) {
        constexpr int K = decltype(size)::value;
        for (; tokens - done >= K; done += K) {
            Kernel(weights,
                   TokenGroup<K>{rows + done * activation_stride, activation_stride,
                                 out + done * out_stride, out_stride},
                   count);
        }
    };
    run(std::integral_constant<int, kTokenGroup>{});
    if constexpr (kTokenGroup > 4) run(std::integral_constant<int, 4>{});
    run(std::integral_constant<int, 2>{});
    if (done < tokens) {
        out[done * out_stride] = dot_one<Kernel>(weights, rows + done * activation_stride, count);
    }
}

// Puts a kernel's two entry points into a table.
template <auto Kernel>
void set_kernel(DotTable& table, int type) {
    table.dot[type] = dot_one<Kernel>;
    table.dot_many[type] = dot_groups<Kernel>;
}

}  // namespace
}  // namespace hearth::kernels
