// The residual connection: x += y, element by element.
#version 450

layout(local_size_x = 64) in;

layout(std430, binding = 0) buffer X {
    float x[];
};
layout(std430, binding = 1) readonly buffer Y {
    float y[];
};

layout(push_constant) uniform Shape {
    uint count;
}
shape;

void main() {
    const uint i = gl_GlobalInvocationID.x;
    if (i < shape.count) x[i] += y[i];
}
