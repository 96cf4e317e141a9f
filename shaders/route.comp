// Expert routing of a mixture-of-experts layer on the device, one invocation per token, as the
// CPU's route_experts (engine/model/expert_routing.cpp) does it: the `used` largest router
// logits, equal logits going to the lower-numbered expert, most probable first; their weights
// are the softmax over all experts renormalised over the kept ones, which is the kept logits'
// exponentials over their own sum (the softmax's denominator cancels). Chain decode routes every
// step here, so the host never waits for a choice.
#version 450

#define MAX_USED 32  // ShaderSet refuses models that use more experts per token

layout(local_size_x = 64) in;

layout(std430, binding = 0) readonly buffer Logits {
    float logits[];  // (tokens, experts)
};
layout(std430, binding = 1) writeonly buffer Chosen {
    uint chosen[];  // (tokens, used): expert ids, most probable first
};
layout(std430, binding = 2) writeonly buffer Weights {
    float weights[];  // (tokens, used), matching `chosen`
};

layout(push_constant) uniform Shape {
    uint tokens;
    uint experts;
    uint used;
}
shape;

void main() {
    const uint token = gl_GlobalInvocationID.x;
    if (token >= shape.tokens) return;
    uint ids[MAX_USED];
    float best[MAX_USED];
    uint kept = 0;
    for (uint e = 0; e < shape.experts; ++e) {
        const float logit = logits[token * shape.experts + e];
        // Experts arrive in increasing order, so an equal logit never displaces a kept one.
        if (kept == shape.used && !(logit > best[kept - 1])) continue;
        uint slot = kept < shape.used ? kept++ : kept - 1;
        for (; slot > 0 && logit > best[slot - 1]; --slot) {
            best[slot] = best[slot - 1];
            ids[slot] = ids[slot - 1];
        }
        best[slot] = logit;
        ids[slot] = e;
    }
    const float largest = best[0];
    float sum = 0.0;
    for (uint k = 0; k < kept; ++k) {
        best[k] = exp(best[k] - largest);
        sum += best[k];
    }
    for (uint k = 0; k < kept; ++k) {
        chosen[token * shape.used + k] = ids[k];
        weights[token * shape.used + k] = best[k] / sum;
    }
}
