// x[t] += sum over the token's chosen experts k of weight[t, k] * out[t, k]: the mixture of
// experts' output added into the residual stream, experts in routing order (most probable
// first) whatever order the grouped product ran them in, so a token's sum does not depend on
// the other tokens of its step.
#version 450

layout(local_size_x = 64) in;

layout(std430, binding = 0) buffer Residual {
    float x[];  // (tokens, dim)
};
layout(std430, binding = 1) readonly buffer ExpertOutput {
    float outputs[];  // (tokens * used, dim), by pair index
};
layout(std430, binding = 2) readonly buffer Weights {
    float weights[];  // (tokens, used)
};

layout(push_constant) uniform Shape {
    uint count;  // tokens * dim
    uint dim;
    uint used;
}
shape;

void main() {
    const uint i = gl_GlobalInvocationID.x;
    if (i >= shape.count) return;
    const uint token = i / shape.dim, column = i % shape.dim;
    float sum = 0.0;
    for (uint k = 0; k < shape.used; ++k) {
        const uint pair = token * shape.used + k;
        sum += weights[pair] * outputs[pair * shape.dim + column];
    }
    x[i] += sum;
}
