// y[row] = W[row, :] . x for Q4_0 weights: blocks of 32 four-bit values (offset by 8) sharing
// one f16 scale, 18 bytes each; low nibbles are elements 0-15, high nibbles 16-31 (ggml's order).
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

void main() {
    const uint row = gl_WorkGroupID.x;
    if (row >= shape.rows) return;
    const uint blocks = shape.columns / 32;
    const uint row_offset = row * blocks * 18;
    float sum = 0.0;
    for (uint block = gl_LocalInvocationID.x; block < blocks; block += 64) {
        const uint offset = row_offset + block * 18;
        const float scale = unpackHalf2x16(byte_at(offset) | (byte_at(offset + 1) << 8)).x;
        float dot = 0.0;
        for (uint i = 0; i < 16; ++i) {
            const uint packed = byte_at(offset + 2 + i);
            dot += float(int(packed & 15u) - 8) * x[block * 32 + i];
            dot += float(int(packed >> 4) - 8) * x[block * 32 + i + 16];
        }
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
