// y[row] = W[row, :] . x for float32 weights: one workgroup per row, the row's columns split
// over the workgroup's invocations and summed in shared memory. The first of the shaders the
// Vulkan backend runs; checked against a double-precision CPU reference on awkward sizes.
#version 450

layout(local_size_x = 64) in;

layout(std430, binding = 0) readonly buffer Weights {
    float weights[];
};
layout(std430, binding = 1) readonly buffer Input {
    float x[];
};
layout(std430, binding = 2) writeonly buffer Output {
    float y[];
};

layout(push_constant) uniform Shape {
    uint rows;
    uint columns;
}
shape;

shared float partial[64];

void main() {
    const uint row = gl_WorkGroupID.x;
    if (row >= shape.rows) return;
    const uint base = row * shape.columns;
    float sum = 0.0;
    for (uint c = gl_LocalInvocationID.x; c < shape.columns; c += 64) {
        sum += weights[base + c] * x[c];
    }
    partial[gl_LocalInvocationID.x] = sum;
    barrier();
    for (uint width = 32; width > 0; width >>= 1) {
        if (gl_LocalInvocationID.x < width) {
            partial[gl_LocalInvocationID.x] += partial[gl_LocalInvocationID.x + width];
        }
        barrier();
    }
    if (gl_LocalInvocationID.x == 0) y[row] = partial[0];
}
