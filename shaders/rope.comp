// Rotary position embedding of every head of every token, in place. The cosines and sines come
// from a table the CPU computed in double precision per (position, pair) — base, rope_freqs or
// LongRoPE factors, linear scaling and LongRoPE's magnitude applied (Rope::angles) — so both
// backends rotate by the same angles, and a position in the thousands loses nothing to a float
// product. Adjacent pairs (llama) or NEOX halves (qwen2) by a push constant. A layer without
// RoPE records no dispatch of this shader.
#version 450

layout(local_size_x = 64) in;

layout(std430, binding = 0) buffer Heads {
    float heads[];
};
layout(std430, binding = 1) readonly buffer Angles {
    vec2 angles[];
};  // (position, pair): (cos, sin)

layout(push_constant) uniform Shape {
    uint tokens;
    uint heads_per_token;
    uint head_dim;
    uint rope_pairs;      // rope_dimensions / 2
    uint first_position;  // of the first token
    uint neox;            // 1: pairs are (i, i + rope_pairs)
}
shape;

void main() {
    const uint id = gl_GlobalInvocationID.x;
    const uint pairs_per_token = shape.heads_per_token * shape.rope_pairs;
    if (id >= shape.tokens * pairs_per_token) return;
    const uint token = id / pairs_per_token;
    const uint head = (id % pairs_per_token) / shape.rope_pairs;
    const uint pair = id % shape.rope_pairs;
    const uint base = (token * shape.heads_per_token + head) * shape.head_dim;
    const uint a = base + (shape.neox == 1 ? pair : 2 * pair);
    const uint b = base + (shape.neox == 1 ? pair + shape.rope_pairs : 2 * pair + 1);
    const vec2 angle = angles[(shape.first_position + token) * shape.rope_pairs + pair];
    const float c = angle.x, s = angle.y;
    const float x0 = heads[a], x1 = heads[b];
    heads[a] = x0 * c - x1 * s;
    heads[b] = x0 * s + x1 * c;
}
