// Attention of each (token, head) over the cached keys and values, flash-decode style: the
// positions a token sees are split over the workgroup's invocations, each keeps an online
// softmax (running maximum, denominator and weighted sum), and the partial results are combined
// at the end. Grouped-query attention maps query head h to key/value head h / (heads /
// kv_heads). The cache holds F16 halves, two per 32-bit word (written by kv_store), or with
// -DKV_Q8_0 ggml's Q8_0 blocks along each head (rows padded to whole words, as kv_store writes
// them), read block by block: one scale, then 32 int8 four to a word. Position p is in row
// p % cache_rows: a sliding-window layer's ring (which holds at least the window before the step
// and the step), or with cache_rows = capacity a whole cache.
//
// Each invocation's weighted sum lives in registers (MAX_HEAD_DIM floats); the combine goes
// through shared memory one slice of LANES dimensions at a time, so shared memory does not grow
// with the head (4.3 KiB, under the 16 KiB every Vulkan device offers). Compiled twice: heads of
// up to 128 dimensions, and with -DMAX_HEAD_DIM=256 for Gemma's, so that models with smaller
// heads do not pay for the larger register array.
//
// With sinks (gpt-oss), each head's softmax has one more logit, sinks[head], unscaled and
// uncapped, in its denominator only: it weighs no value. It joins after the combine, as the CPU's
// attention adds it (e^(sink - maximum), the maximum over the scores alone), so every path
// through here (decode, prompt, chain) treats it alike.
#version 450
#extension GL_GOOGLE_include_directive : require

#define LANES 32
#ifndef MAX_HEAD_DIM
#define MAX_HEAD_DIM 128
#endif

layout(local_size_x = LANES) in;

layout(std430, binding = 0) readonly buffer Query {
    float query[];
};  // (tokens, heads, dim)
layout(std430, binding = 1) readonly buffer Keys {
    uint keys[];
};  // (cache_rows, kv_dim) halves
layout(std430, binding = 2) readonly buffer Values {
    uint values[];
};  // (cache_rows, kv_dim) halves
layout(std430, binding = 3) writeonly buffer Output {
    float attended[];
};
layout(std430, binding = 4) readonly buffer Sinks {
    float sinks[];
};  // (heads), read only with shape.sinks

layout(push_constant) uniform Shape {
    uint tokens;
    uint heads;
    uint kv_heads;
    uint head_dim;        // at most MAX_HEAD_DIM
    uint first_position;  // of the first token: token t sees positions up to first + t
    float scale;          // multiplies q.k: 1 / sqrt(head_dim), or the model's own
    uint window;          // > 0: token at position i sees only (i - window, i]
    float softcap;        // > 0: scores become softcap * tanh(score / softcap)
    uint cache_rows;      // position p is in row p % cache_rows
    uint sinks;           // 1: sinks[head] joins each head's denominator
}
shape;

#include "softcap.glsl"

#ifdef KV_Q8_0

// The four bytes at byte `offset`, little-endian (a block starts at an even byte; a row's
// padding keeps the second load of an unaligned read inside the buffer).
uint key_word(uint offset) {
    const uint index = offset >> 2, shift = (offset & 3u) * 8u;
    if (shift == 0) return keys[index];
    return (keys[index] >> shift) | (keys[index + 1] << (32u - shift));
}

uint value_word(uint offset) {
    const uint index = offset >> 2, shift = (offset & 3u) * 8u;
    if (shift == 0) return values[index];
    return (values[index] >> shift) | (values[index + 1] << (32u - shift));
}

float quant(uint packed, uint j) {
    return float(int(packed << (24u - 8u * j)) >> 24);
}

// Byte offset of the first block of KV head kv's keys (or values) at `position`.
uint row_start(uint position, uint kv) {
    const uint blocks = shape.kv_heads * shape.head_dim / 32;
    return (position % shape.cache_rows) * ((blocks * 34 + 3) / 4 * 4) +
           kv * (shape.head_dim / 32) * 34;
}

float key_score(uint row, uint q_offset) {
    float score = 0.0;
    for (uint b = 0; b < shape.head_dim / 32; ++b) {
        const uint block = row + b * 34;
        float sum = 0.0;
        for (uint w = 0; w < 8; ++w) {
            const uint packed = key_word(block + 2 + 4 * w);
            for (uint j = 0; j < 4; ++j)
                sum += query[q_offset + b * 32 + 4 * w + j] * quant(packed, j);
        }
        score += sum * unpackHalf2x16(key_word(block) & 0xffffu).x;
    }
    return score;
}

#else

float key_at(uint index) {
    const vec2 pair = unpackHalf2x16(keys[index >> 1]);
    return (index & 1u) == 0u ? pair.x : pair.y;
}

float value_at(uint index) {
    const vec2 pair = unpackHalf2x16(values[index >> 1]);
    return (index & 1u) == 0u ? pair.x : pair.y;
}

#endif

shared float lane_max[LANES];
shared float lane_sum[LANES];
shared float lane_acc[LANES][LANES + 1];  // one slice; padded against bank conflicts

void main() {
    const uint token = gl_WorkGroupID.x / shape.heads;
    const uint head = gl_WorkGroupID.x % shape.heads;
    const uint lane = gl_LocalInvocationID.x;
    const uint dim = shape.head_dim;
    const uint kv_dim = shape.kv_heads * dim;
    const uint kv_offset = (head / (shape.heads / shape.kv_heads)) * dim;
    const uint q_offset = (token * shape.heads + head) * dim;
    const uint limit = shape.first_position + token + 1;
    const uint start = shape.window > 0 && limit > shape.window ? limit - shape.window : 0;

    float running_max = -1.0 / 0.0;
    float denominator = 0.0;
    float acc[MAX_HEAD_DIM];
    for (uint d = 0; d < dim; ++d) acc[d] = 0.0;
    for (uint position = start + lane; position < limit; position += LANES) {
#ifdef KV_Q8_0
        const uint row = row_start(position, kv_offset / dim);
        float score = key_score(row, q_offset);
#else
        const uint row = (position % shape.cache_rows) * kv_dim + kv_offset;
        float score = 0.0;
        for (uint d = 0; d < dim; ++d) score += query[q_offset + d] * key_at(row + d);
#endif
        score = softcap(score * shape.scale, shape.softcap);
        const float new_max = max(running_max, score);
        const float correction = exp(running_max - new_max);
        const float weight = exp(score - new_max);
        denominator = denominator * correction + weight;
#ifdef KV_Q8_0
        for (uint b = 0; b < dim / 32; ++b) {
            const uint block = row + b * 34;
            const float scaled = weight * unpackHalf2x16(value_word(block) & 0xffffu).x;
            for (uint w = 0; w < 8; ++w) {
                const uint packed = value_word(block + 2 + 4 * w);
                for (uint j = 0; j < 4; ++j) {
                    const uint d = b * 32 + 4 * w + j;
                    acc[d] = acc[d] * correction + scaled * quant(packed, j);
                }
            }
        }
#else
        for (uint d = 0; d < dim; ++d) {
            acc[d] = acc[d] * correction + weight * value_at(row + d);
        }
#endif
        running_max = new_max;
    }
    lane_max[lane] = running_max;
    lane_sum[lane] = denominator;
    barrier();

    // Combine: every lane's partial result rescaled to the overall maximum (a lane that saw no
    // position contributes nothing), summed one slice of dimensions at a time.
    float overall = -1.0 / 0.0;
    for (uint other = 0; other < LANES; ++other) overall = max(overall, lane_max[other]);
    float total = 0.0;
    for (uint other = 0; other < LANES; ++other) {
        if (lane_sum[other] > 0.0) total += lane_sum[other] * exp(lane_max[other] - overall);
    }
    if (shape.sinks != 0u) total += exp(sinks[head] - overall);
    const float own_weight = denominator > 0.0 ? exp(running_max - overall) : 0.0;
    for (uint slice = 0; slice < dim; slice += LANES) {
        for (uint d = 0; d < LANES && slice + d < dim; ++d)
            lane_acc[lane][d] = acc[slice + d] * own_weight;
        barrier();
        if (slice + lane < dim) {
            float sum = 0.0;
            for (uint other = 0; other < LANES; ++other) sum += lane_acc[other][lane];
            attended[q_offset + slice + lane] = sum / total;
        }
        barrier();
    }
}
