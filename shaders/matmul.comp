// y[t, row] = W[row, :] . x[t, :] for a weight matrix of the type named by the TYPE_* define,
// dequantised in the shader, for up to TILE tokens per workgroup so each weight is read once per
// tile: one kernel for decode (one token) and prefill (many). Options: add a bias, add the
// product into y instead of replacing it (the residual connection, fused), and soft-cap it
// (Gemma 2's final logits, capped before the device's argmax or sampler reads them). A matrix
// larger than the device's storage-buffer range arrives in pieces of whole rows, one dispatch each.
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
layout(std430, binding = 2) buffer Output {
    float y[];
};
layout(std430, binding = 3) readonly buffer Bias {
    float bias[];
};

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

#include "dequantize.glsl"
#include "softcap.glsl"

#ifdef SHARED_REDUCTION
#define LANES WORKGROUP
shared float partial[TILE][LANES];
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
    const uint first_token = gl_WorkGroupID.y * TILE;
    const uint count = min(TILE, shape.tokens - first_token);
    float sums[TILE];
    for (uint t = 0; t < TILE; ++t) sums[t] = 0.0;
    if (row < shape.rows) {
        const uint base = row * row_bytes(shape.columns);
        const uint groups = (shape.columns + 31) / 32;
        float v[32];
        for (uint group = lane; group < groups; group += lanes) {
            dequantize_group(base, group, shape.columns, v);
            const uint width = min(32, shape.columns - group * 32);
            for (uint t = 0; t < count; ++t) {
                const uint source =
                    (shape.first_input + first_token + t) * shape.columns + group * 32;
                float dot = 0.0;
                for (uint i = 0; i < width; ++i) dot += v[i] * x[source + i];
                sums[t] += dot;
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
    const uint out_row = shape.first_row + row;
    for (uint token = lane; token < count; token += lanes) {
        float value = sums[0];
        for (uint t = 1; t < TILE; ++t) {
            if (t == token) value = sums[t];
        }
        if ((shape.flags & 1u) != 0) value += bias[out_row];
        const uint index = (first_token + token) * shape.output_stride + out_row;
        if ((shape.flags & 2u) != 0) value += y[index];
        if ((shape.flags & 4u) != 0) value = softcap(value, shape.softcap);
        y[index] = value;
    }
}
