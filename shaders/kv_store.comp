// Writes the new tokens' keys (rotated by RoPE here, fused with the store) and values into the
// layer's F16 cache, position p in row p % cache_rows (a sliding-window layer's ring; a whole cache
// has a slot per position). One invocation per pair of adjacent elements, packed into one
// 32-bit word; a NEOX rotation pairs element i with i + rope_pairs, so each invocation
// reads its elements' partners from the unrotated input. rope_pairs 0 stores the keys as they
// are (SmolLM3's layers without RoPE).
#version 450

layout(local_size_x = 64) in;

layout(std430, binding = 0) readonly buffer Keys {
    float keys[];
};  // (tokens, kv_dim)
layout(std430, binding = 1) readonly buffer Values {
    float values[];
};
layout(std430, binding = 2) readonly buffer Angles {
    vec2 angles[];
};  // (position, pair): (cos, sin), as rope.comp
layout(std430, binding = 3) writeonly buffer KeyCache {
    uint key_cache[];
};  // (cache_rows, kv_dim) halves, two per word
layout(std430, binding = 4) writeonly buffer ValueCache {
    uint value_cache[];
};

layout(push_constant) uniform Shape {
    uint tokens;
    uint kv_heads;
    uint head_dim;
    uint rope_pairs;
    uint first_position;
    uint neox;
    uint cache_rows;  // rows of the cache: position p is in row p % cache_rows
}
shape;

float rotated(uint head_base, uint e, uint position) {
    const uint rotated_dims = 2 * shape.rope_pairs;
    if (e >= rotated_dims) return keys[head_base + e];
    uint pair, partner;
    bool first;
    if (shape.neox == 1) {
        first = e < shape.rope_pairs;
        pair = first ? e : e - shape.rope_pairs;
        partner = first ? e + shape.rope_pairs : pair;
    } else {
        first = (e & 1u) == 0;
        pair = e / 2;
        partner = first ? e + 1 : e - 1;
    }
    const vec2 angle = angles[position * shape.rope_pairs + pair];
    const float c = angle.x, s = angle.y;
    const float self = keys[head_base + e], other = keys[head_base + partner];
    return first ? self * c - other * s : other * s + self * c;
}

void main() {
    const uint id = gl_GlobalInvocationID.x;
    const uint kv_dim = shape.kv_heads * shape.head_dim;
    const uint words_per_token = kv_dim / 2;
    if (id >= shape.tokens * words_per_token) return;
    const uint t = id / words_per_token;
    const uint element = (id % words_per_token) * 2;
    const uint head_base = t * kv_dim + (element / shape.head_dim) * shape.head_dim;
    const uint e = element % shape.head_dim;
    const uint position = shape.first_position + t;
    const vec2 key = vec2(rotated(head_base, e, position), rotated(head_base, e + 1, position));
    const uint slot = (position % shape.cache_rows) * words_per_token + element / 2;
    key_cache[slot] = packHalf2x16(key);
    value_cache[slot] =
        packHalf2x16(vec2(values[t * kv_dim + element], values[t * kv_dim + element + 1]));
}
