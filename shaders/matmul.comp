// y[t, row] = W[row, :] . x[t, :] for a weight matrix of the type named by the TYPE_* define,
// dequantised in the shader, for up to TILE tokens per workgroup so each weight is read once per
// tile: one kernel for decode (one token) and prefill (many). Options: add a bias, add the
// product into y instead of replacing it (the residual connection, fused), and soft-cap it
// (Gemma 2's final logits, capped before the device's argmax or sampler reads them). A matrix
// larger than the device's storage-buffer range arrives in pieces of whole rows, one dispatch each.
//
// Compiled with EXPERTS, the product of a mixture-of-experts layer's stacked expert matrices
// (expert e's rows after expert e - 1's): each workgroup's y index is a tile of up to TILE
// (token, expert) pairs that chose the same expert, as expert_tiles.comp listed them, so only the
// chosen experts' rows are read, each once per tile. Its input rows are the pairs' tokens, or
// the pairs in tile order (the down projection reads the gate's output); its output rows the
// pairs in tile order, or by pair (what expert_sum.comp reads back per token).
//
// Each subgroup computes one row and sums its lanes with subgroupAdd: no shared memory, no
// barriers (a workgroup holds 64 / subgroup-size rows). Compiled with SHARED_REDUCTION for
// devices without subgroup arithmetic: then a workgroup computes one row and sums in shared
// memory.
#version 450
#extension GL_GOOGLE_include_directive : require
#ifndef SHARED_REDUCTION
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#endif

#define WORKGROUP 64
#define TILE 8
#define SLICE 32768  // workgroups in x; more continue in z

layout(local_size_x = WORKGROUP) in;

layout(std430, binding = 0) readonly buffer Weights {
    uint words[];
};
layout(std430, binding = 1) readonly buffer Input {
    float x[];
};
layout(std430, binding = 1) readonly buffer InputQuads {
    vec4 x4[];  // the same activations, four at a time
};
layout(std430, binding = 2) buffer Output {
    float y[];
};
layout(std430, binding = 3) readonly buffer Bias {
    float bias[];
};

#ifdef EXPERTS
layout(std430, binding = 4) readonly buffer Order {
    uint order[];  // pair indices (token * used + slot), grouped by expert
};
layout(std430, binding = 5) readonly buffer Tiles {
    uint tiles[];  // per tile: expert, first entry of `order`, entries (0: no tile)
};

layout(push_constant) uniform Shape {
    uint rows;  // of one expert
    uint columns;
    uint first_expert;   // of this piece
    uint experts;        // in this piece
    uint output_stride;  // floats between output rows
    uint flags;          // 1: add the bias (expert e's at e * rows), 8: input rows are the pairs'
                         // tokens, 16: output rows are pair indices
    uint used;           // experts per token
    uint unused;
}
shape;
#else
layout(push_constant) uniform Shape {
    uint rows;  // in this piece
    uint columns;
    uint tokens;
    uint first_input;    // row of x that token 0 reads
    uint first_row;      // of this piece in the whole matrix: y's and the bias's row offset
    uint output_stride;  // floats between tokens in y (the whole matrix's rows)
    uint flags;          // 1: add the bias, 2: accumulate into y, 4: soft-cap the result
    float softcap;       // the cap for flag 4
}
shape;
#endif

#include "dequantize.glsl"
#include "softcap.glsl"

#ifdef SHARED_REDUCTION
#define LANES WORKGROUP
shared float partial[TILE][LANES];
#endif

#ifdef EXPERTS
uint input_row(uint entry) {
    return (shape.flags & 8u) != 0 ? order[entry] / shape.used : entry;
}
uint output_row(uint entry) {
    return (shape.flags & 16u) != 0 ? order[entry] : entry;
}
#else
uint input_row(uint entry) {
    return shape.first_input + entry;
}
uint output_row(uint entry) {
    return entry;
}
#endif

void main() {
    const uint workgroup = gl_WorkGroupID.z * SLICE + gl_WorkGroupID.x;
#ifdef SHARED_REDUCTION
    const uint row = workgroup;
    const uint lane = gl_LocalInvocationID.x;
    const uint lanes = LANES;
#else
    const uint row = workgroup * gl_NumSubgroups + gl_SubgroupID;
    const uint lane = gl_SubgroupInvocationID;
    const uint lanes = gl_SubgroupSize;
#endif
#ifdef EXPERTS
    // The whole workgroup leaves together: tiles past the step's, or of another piece's experts.
    const uint tile = gl_WorkGroupID.y * 3;
    const uint expert = tiles[tile], first_entry = tiles[tile + 1], count = tiles[tile + 2];
    if (count == 0 || expert < shape.first_expert || expert >= shape.first_expert + shape.experts)
        return;
    const uint matrix_row = (expert - shape.first_expert) * shape.rows + row;
    const uint out_column = row;
    const uint bias_row = expert * shape.rows + row;
#else
    const uint first_entry = gl_WorkGroupID.y * TILE;
    const uint count = min(TILE, shape.tokens - first_entry);
    const uint matrix_row = row;
    const uint out_column = shape.first_row + row;
    const uint bias_row = out_column;
#endif
    // Every loop over tokens or a group's elements has a fixed length, so the compiler can unroll
    // it and keep v, sums and sources in registers: indexed under a bound known only at run
    // time, such arrays can be put in local memory. Whole groups read the activations in eight
    // vec4 loads, not 32 scalar ones: a lane's loads are 128 bytes from the next lane's, so on a
    // GPU each load of the subgroup touches 32 cache lines, and a quarter of the loads is a
    // quarter of those requests (an H100 decoded at the same 7 ms a token whether it read 0.6 or
    // 1.2 GB of weights).
    uint sources[TILE];
    for (uint t = 0; t < TILE; ++t)
        sources[t] = t < count ? input_row(first_entry + t) * shape.columns : 0;
    float sums[TILE];
    for (uint t = 0; t < TILE; ++t) sums[t] = 0.0;
    if (row < shape.rows) {
        const uint base = matrix_row * row_bytes(shape.columns);
        const uint groups = (shape.columns + 31) / 32;
        const bool quads = (shape.columns & 3u) == 0;  // every row starts on a vec4
        float v[32];
        for (uint group = lane; group < groups; group += lanes) {
            dequantize_group(base, group, shape.columns, v);
            const uint width = min(32, shape.columns - group * 32);
            for (uint t = 0; t < TILE; ++t) {
                if (t >= count) break;
                const uint source = sources[t] + group * 32;
                float product = 0.0;
                if (width == 32 && quads) {
                    for (uint q = 0; q < 8; ++q) {
                        const vec4 weights =
                            vec4(v[4 * q], v[4 * q + 1], v[4 * q + 2], v[4 * q + 3]);
                        product += dot(weights, x4[source / 4 + q]);
                    }
                } else {
                    for (uint i = 0; i < 32; ++i) {
                        if (i < width) product += v[i] * x[source + i];
                    }
                }
                sums[t] += product;
            }
        }
    }
#ifdef SHARED_REDUCTION
    for (uint t = 0; t < TILE; ++t) partial[t][lane] = sums[t];
    barrier();
    for (uint width = LANES / 2; width > 0; width >>= 1) {
        if (lane < width) {
            for (uint t = 0; t < count; ++t) partial[t][lane] += partial[t][lane + width];
        }
        barrier();
    }
    for (uint t = 0; t < TILE; ++t) sums[t] = partial[t][0];
#else
    for (uint t = 0; t < TILE; ++t) sums[t] = subgroupAdd(sums[t]);
#endif
    if (row >= shape.rows) return;
    // Lane t writes token t's result.
    for (uint token = lane; token < count; token += lanes) {
        float value = sums[0];
        for (uint t = 1; t < TILE; ++t) {
            if (t == token) value = sums[t];
        }
        if ((shape.flags & 1u) != 0) value += bias[bias_row];
        const uint index = output_row(first_entry + token) * shape.output_stride + out_column;
#ifndef EXPERTS
        if ((shape.flags & 2u) != 0) value += y[index];
        if ((shape.flags & 4u) != 0) value = softcap(value, shape.softcap);
#endif
        y[index] = value;
    }
}
