// y[row] = W[row, :] . x for f16 weights (IEEE half bits, two per 32-bit word), converted in the
// shader with unpackHalf2x16, so no shaderFloat16 support is needed.
#version 450

layout(local_size_x = 64) in;

layout(std430, binding = 0) readonly buffer Weights {
    uint words[];
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

float weight_at(uint index) {
    const vec2 pair = unpackHalf2x16(words[index >> 1]);
    return (index & 1u) == 0u ? pair.x : pair.y;
}

void main() {
    const uint row = gl_WorkGroupID.x;
    if (row >= shape.rows) return;
    const uint base = row * shape.columns;
    float sum = 0.0;
    for (uint c = gl_LocalInvocationID.x; c < shape.columns; c += 64)
        sum += weight_at(base + c) * x[c];
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
