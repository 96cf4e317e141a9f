// y[row] = W[row, :] . x for Q8_0 weights, dequantised in the shader: blocks of 32 int8 values
// sharing one f16 scale (34 bytes, so the buffer is read as bytes out of 32-bit words).
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
    uint columns;  // a multiple of 32
}
shape;

shared float partial[64];

uint byte_at(uint offset) {
    return (words[offset >> 2] >> ((offset & 3u) * 8u)) & 0xffu;
}

int int8_at(uint offset) {
    return int(byte_at(offset) << 24) >> 24;
}

void main() {
    const uint row = gl_WorkGroupID.x;
    if (row >= shape.rows) return;
    const uint blocks = shape.columns / 32;
    const uint row_offset = row * blocks * 34;
    float sum = 0.0;
    for (uint block = gl_LocalInvocationID.x; block < blocks; block += 64) {
        const uint offset = row_offset + block * 34;
        const float scale = unpackHalf2x16(byte_at(offset) | (byte_at(offset + 1) << 8)).x;
        float dot = 0.0;
        for (uint i = 0; i < 32; ++i) dot += float(int8_at(offset + 2 + i)) * x[block * 32 + i];
        sum += scale * dot;
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
