// Dot products of one weight row (raw file bytes) with one activation row, per weight format.
// Each format has a scalar twin and, where it pays, SIMD versions chosen once at run time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace hearth::kernels {

// How the activations for a format must be prepared.
enum class ActivationFormat { F32, Q8, Q8K, Q4_0Lanes, Q8Offset };

// weights: `count` elements of the format; activations: `count` elements in the matching
// ActivationFormat (float, BlockQ8, BlockQ8K, LaneGroup or BlockQ8Offset).
using DotFunction = float (*)(const void* weights, const void* activations, size_t count);

// One weight row against `tokens` activation rows (token t's at activations + t *
// activation_stride bytes): out[t * out_stride] is what the same table's DotFunction returns
// for token t, bit for bit, so a row's result never depends on the rows batched with it. The
// SIMD versions unpack each block of weights once for a group of tokens.
using DotManyFunction = void (*)(const void* weights, const void* activations,
                                 size_t activation_stride, size_t tokens, float* out,
                                 size_t out_stride, size_t count);

// Weight rows side by side, one per vector lane: kDotRows rows (row r at weights + r *
// row_bytes; `rows` of them, at most kDotRows) against `tokens` activation rows laid out as for
// DotManyFunction: out[t * out_stride + r]. Each block of the rows is unpacked once for all the
// tokens, and each (row, token) runs the same operations whatever the rows or tokens beside it,
// equal bit for bit to the same table's DotFunction.
inline constexpr size_t kDotRows = 8;
using DotRowsFunction = void (*)(const void* weights, size_t row_bytes, size_t rows,
                                 const void* activations, size_t activation_stride, size_t tokens,
                                 float* out, size_t out_stride, size_t count);

// Indexed by ggml type id (the formats Hearth reads); unused ids are null.
struct DotTable {
    static constexpr int kTypes = 40;
    DotFunction dot[kTypes] = {};
    DotManyFunction dot_many[kTypes] = {};
    DotRowsFunction dot_rows[kTypes] = {};  // null where a format has no row kernel
    ActivationFormat format[kTypes] = {};
};

enum class Isa { Scalar, Avx2, Avx512Vnni };  // each level includes the ones before

Isa best_isa();  // what this CPU runs, decided once
std::string_view isa_name(Isa isa);
// The level a name (scalar, avx2, avx512-vnni) stands for; throws std::invalid_argument for
// another name or a level this CPU cannot run.
Isa parse_isa(std::string_view name);
const DotTable& dot_table(Isa isa);
inline const DotTable& dot_table() {
    return dot_table(best_isa());
}

// The scalar twin of table.dot[type], reading the activation format that kernel reads.
DotFunction scalar_twin(const DotTable& table, int type);

// Bytes one row of `count` activations takes in a format.
size_t activation_row_bytes(ActivationFormat format, size_t count);
// Converts float activations into the format (out must hold activation_row_bytes).
void prepare_activations(ActivationFormat format, const float* x, void* out, size_t count);

}  // namespace hearth::kernels

namespace hearth::kernels {

// out[i] += scale * v[i] for f16 v: the value half of attention over an F16 KV cache.
using AddScaledF16Function = void (*)(float scale, const uint16_t* v, float* out, size_t count);
AddScaledF16Function add_scaled_f16(Isa isa);
inline AddScaledF16Function add_scaled_f16() {
    return add_scaled_f16(best_isa());
}

}  // namespace hearth::kernels
