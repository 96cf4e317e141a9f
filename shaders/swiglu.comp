// gate = silu(gate) * up, element by element.
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
    gate[i] = g / (1.0 + exp(-g)) * up[i];
}
