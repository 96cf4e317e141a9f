// The feed-forward gate, element by element: gate = silu(gate) * up (SwiGLU), or compiled with
// -DGELU, gate = gelu(gate) * up (Gemma's GeGLU) with the tanh approximation written as the CPU
// kernels write it, x / (1 + exp(-2y)) with y = sqrt(2/pi) (x + 0.044715 x^3) (the same
// identity as 0.5 x (1 + tanh(y)), and no tanh to overflow). Compiled with -DCLAMPED, gpt-oss's
// clamped SwiGLU: x = min(gate, 7), gate = x * sigmoid(1.702 x) * (clamp(up, -7, 7) + 1).
#version 450

layout(local_size_x = 64) in;

layout(std430, binding = 0) buffer Gate {
    float gate[];
};
layout(std430, binding = 1) readonly buffer Up {
    float up[];
};

layout(push_constant) uniform Shape {
    uint count;
}
shape;

void main() {
    const uint i = gl_GlobalInvocationID.x;
    if (i >= shape.count) return;
    const float g = gate[i];
#ifdef GELU
    const float twice_y = 2.0 * 0.7978845608 * (g + 0.044715 * g * g * g);
    gate[i] = g / (1.0 + exp(-twice_y)) * up[i];
#elif defined(CLAMPED)
    const float x = min(g, 7.0);
    gate[i] = x / (1.0 + exp(-1.702 * x)) * (clamp(up[i], -7.0, 7.0) + 1.0);
#else
    gate[i] = g / (1.0 + exp(-g)) * up[i];
#endif
}
