// Sampling on the device by the Gumbel-max trick: argmax(logit / temperature + G) with G drawn
// from a standard Gumbel distribution picks token i with probability softmax(logits / T)_i, so
// a chain of decode steps can choose each next token without the CPU. The noise comes from a
// counter-based hash of (seed, step, token): no state to carry between steps, and the same
// seed gives the same tokens. One workgroup per draw (step = first_step + workgroup).
#version 450

layout(local_size_x = 256) in;

layout(std430, binding = 0) readonly buffer Logits {
    float logits[];
};
layout(std430, binding = 1) writeonly buffer Tokens {
    uint tokens[];
};

layout(push_constant) uniform Settings {
    uint count;
    float temperature;
    uint seed_low;
    uint seed_high;
    uint first_step;
}
settings;

shared float best_value[256];
shared uint best_index[256];

// PCG's output permutation over a 32-bit state: a well-mixed hash of its input.
uint pcg_hash(uint value) {
    uint state = value * 747796405u + 2891336453u;
    uint word = ((state >> ((state >> 28u) + 4u)) ^ state) * 277803737u;
    return (word >> 22u) ^ word;
}

float uniform_open(uint step, uint index) {
    const uint h =
        pcg_hash(pcg_hash(pcg_hash(settings.seed_low ^ step) ^ settings.seed_high) ^ index);
    return (float(h >> 8) + 0.5) / 16777216.0;  // (0, 1), 24 bits
}

void main() {
    const uint lane = gl_LocalInvocationID.x;
    const uint step = settings.first_step + gl_WorkGroupID.x;
    float value = -1.0 / 0.0;
    uint index = 0xffffffffu;
    for (uint i = lane; i < settings.count; i += 256) {
        const float gumbel = -log(-log(uniform_open(step, i)));
        const float score = logits[i] / settings.temperature + gumbel;
        if (score > value) {
            value = score;
            index = i;
        }
    }
    best_value[lane] = value;
    best_index[lane] = index;
    barrier();
    for (uint width = 128; width > 0; width >>= 1) {
        if (lane < width && (best_value[lane + width] > best_value[lane] ||
                             (best_value[lane + width] == best_value[lane] &&
                              best_index[lane + width] < best_index[lane]))) {
            best_value[lane] = best_value[lane + width];
            best_index[lane] = best_index[lane + width];
        }
        barrier();
    }
    if (lane == 0) tokens[gl_WorkGroupID.x] = best_index[0];
}
