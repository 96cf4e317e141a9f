// y = x * weight / sqrt(mean(x^2) + epsilon), one workgroup per row: a token's activations, or
// one head of a token for the per-head q/k norms (rows of head_dim sharing one weight). With
// flag 1 the result is added into y instead (Gemma's post-norms: the block's normalised output
// joins the residual stream in the same pass).
//
// May run in place (x and y the same buffer): each invocation reads its elements for the sum
// before the reduction's barriers and rewrites only those same elements after them.
#version 450

layout(local_size_x = 64) in;

layout(std430, binding = 0) readonly buffer Input {
    float x[];
};
layout(std430, binding = 1) readonly buffer Weight {
    float weight[];
};
layout(std430, binding = 2) buffer Output {
    float y[];
};

layout(push_constant) uniform Shape {
    uint rows;
    uint dim;
    float epsilon;
    uint flags;  // 1: y += the normalised row
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
    const bool accumulate = (shape.flags & 1u) != 0;
    for (uint i = gl_LocalInvocationID.x; i < shape.dim; i += 64) {
        const float normed = x[base + i] * scale * weight[i];
        y[base + i] = accumulate ? y[base + i] + normed : normed;
    }
}
