// y = x * weight / sqrt(mean(x^2) + epsilon), one workgroup per row (token).
#version 450

layout(local_size_x = 64) in;

layout(std430, binding = 0) readonly buffer Input {
    float x[];
};
layout(std430, binding = 1) readonly buffer Weight {
    float weight[];
};
layout(std430, binding = 2) writeonly buffer Output {
    float y[];
};

layout(push_constant) uniform Shape {
    uint rows;
    uint dim;
    float epsilon;
}
shape;

shared float partial[64];

void main() {
    const uint row = gl_WorkGroupID.x;
    if (row >= shape.rows) return;
    const uint base = row * shape.dim;
    float sum = 0.0;
    for (uint i = gl_LocalInvocationID.x; i < shape.dim; i += 64) sum += x[base + i] * x[base + i];
    partial[gl_LocalInvocationID.x] = sum;
    barrier();
    for (uint width = 32; width > 0; width >>= 1) {
        if (gl_LocalInvocationID.x < width) {
            partial[gl_LocalInvocationID.x] += partial[gl_LocalInvocationID.x + width];
        }
        barrier();
    }
    const float scale = inversesqrt(partial[0] / float(shape.dim) + shape.epsilon);
    for (uint i = gl_LocalInvocationID.x; i < shape.dim; i += 64) {
        y[base + i] = x[base + i] * scale * weight[i];
    }
}
