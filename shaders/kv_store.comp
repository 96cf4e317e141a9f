// Writes the new tokens' keys (rotated by RoPE here, fused with the store) and values into the
// layer's cache, position p in row p % cache_rows (a sliding-window layer's ring; a whole cache
// has a slot per position). An F16 cache: one invocation per pair of adjacent elements, packed
// into one 32-bit word. A Q8_0 cache (compiled with -DKV_Q8_0): rows of kv_dim / 32 blocks of 34
// bytes (ggml's Q8_0: an f16 scale, 32 int8), padded to whole words; one invocation quantises a
// pair of adjacent blocks (17 words no other invocation touches), or a row's odd last block, as
// the CPU's quantize_q8_0 does (scale = largest magnitude / 127, quants rounded to nearest even).
// A NEOX rotation pairs element i with i + rope_pairs, so each invocation reads its elements'
// partners from the unrotated input. rope_pairs 0 stores the keys as they are (SmolLM3's layers
// without RoPE).
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
};  // (cache_rows, kv_dim) halves, two per word; or (cache_rows, row words) of Q8_0 blocks
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

#ifdef KV_Q8_0

// Element `element` of token t: its rotated key, or its value.
float source(bool key, uint t, uint element, uint position) {
    const uint kv_dim = shape.kv_heads * shape.head_dim;
    if (!key) return values[t * kv_dim + element];
    const uint head_base = t * kv_dim + (element / shape.head_dim) * shape.head_dim;
    return rotated(head_base, element % shape.head_dim, position);
}

void put_byte(inout uint packed[17], uint offset, uint byte) {
    packed[offset >> 2] |= (byte & 0xffu) << ((offset & 3u) * 8u);
}

// Blocks [first_block, first_block + count) of token t's keys or values as 34-byte Q8_0 blocks,
// little-endian in 17 words (with one block, the last word's upper half is the row's padding).
void quantise(bool key, uint t, uint first_block, uint count, uint position, out uint packed[17]) {
    for (uint i = 0; i < 17; ++i) packed[i] = 0;
    for (uint b = 0; b < count; ++b) {
        float v[32];
        float largest = 0.0;
        for (uint i = 0; i < 32; ++i) {
            v[i] = source(key, t, (first_block + b) * 32 + i, position);
            largest = max(largest, abs(v[i]));
        }
        const float scale = largest / 127.0;
        const float inverse = scale != 0.0 ? 1.0 / scale : 0.0;
        const uint half_bits = packHalf2x16(vec2(scale, 0.0));
        put_byte(packed, b * 34, half_bits);
        put_byte(packed, b * 34 + 1, half_bits >> 8);
        for (uint i = 0; i < 32; ++i) {
            const int quant = int(clamp(roundEven(v[i] * inverse), -127.0, 127.0));
            put_byte(packed, b * 34 + 2 + i, uint(quant));
        }
    }
}

void main() {
    const uint id = gl_GlobalInvocationID.x;
    const uint blocks = shape.kv_heads * shape.head_dim / 32;
    const uint pairs = (blocks + 1) / 2;
    if (id >= shape.tokens * pairs) return;
    const uint t = id / pairs;
    const uint first_block = (id % pairs) * 2;
    const uint count = min(2u, blocks - first_block);
    const uint words = count == 2 ? 17 : 9;
    const uint position = shape.first_position + t;
    const uint row_words = (blocks * 34 + 3) / 4;
    const uint base = (position % shape.cache_rows) * row_words + first_block * 34 / 4;
    uint packed[17];
    quantise(true, t, first_block, count, position, packed);
    for (uint i = 0; i < words; ++i) key_cache[base + i] = packed[i];
    quantise(false, t, first_block, count, position, packed);
    for (uint i = 0; i < words; ++i) value_cache[base + i] = packed[i];
}

#else

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

#endif
