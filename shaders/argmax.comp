// The index of the largest logit, the lowest index among equals (as the CPU sampler does), in one
// workgroup: each invocation scans a stride, then a tree reduction. The token goes into the
// device's token ring, where the next decode step's embedding reads it.
#version 450

layout(local_size_x = 256) in;

layout(std430, binding = 0) readonly buffer Logits {
    float logits[];
};
layout(std430, binding = 1) buffer Tokens {
    uint tokens[];
};  // the device's token ring

layout(push_constant) uniform Shape {
    uint count;
    uint slot;  // where the token goes in the ring
}
shape;

shared float best_value[256];
shared uint best_index[256];

void main() {
    const uint lane = gl_LocalInvocationID.x;
    float value = -1.0 / 0.0;
    uint index = 0xffffffffu;
    for (uint i = lane; i < shape.count; i += 256) {
        if (logits[i] > value) {
            value = logits[i];
            index = i;
        }
    }
    best_value[lane] = value;
    best_index[lane] = index;
    barrier();
    for (uint width = 128; width > 0; width >>= 1) {
        if (lane < width) {
            const float other = best_value[lane + width];
            const uint other_index = best_index[lane + width];
            if (other > best_value[lane] ||
                (other == best_value[lane] && other_index < best_index[lane])) {
                best_value[lane] = other;
                best_index[lane] = other_index;
            }
        }
        barrier();
    }
    if (lane == 0) tokens[shape.slot] = best_index[0];
}
