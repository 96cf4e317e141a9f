// x[t, :] = the embedding row of token t, dequantised and multiplied by `scale` (Gemma scales
// its embeddings by sqrt(dim); 1 elsewhere). Token ids come from the device's token
// ring, so a chain of decode steps embeds the token its previous step chose without the CPU.
// A table split into pieces runs once per piece; each piece fills the tokens whose rows it holds.
#version 450
#extension GL_GOOGLE_include_directive : require

layout(local_size_x = 64) in;

layout(std430, binding = 0) readonly buffer Weights {
    uint words[];
};
layout(std430, binding = 1) readonly buffer Tokens {
    uint tokens[];
};
layout(std430, binding = 2) writeonly buffer Output {
    float x[];
};

layout(push_constant) uniform Shape {
    uint columns;    // the embedding width
    uint first_row;  // of this piece
    uint rows;       // in this piece
    uint slot;       // ring slot of token 0
    uint ring;       // slots in the ring
    float scale;     // every element is multiplied by this
}
shape;

#include "dequantize.glsl"

void main() {
    const uint t = gl_WorkGroupID.x;
    const uint token = tokens[(shape.slot + t) % shape.ring];
    if (token < shape.first_row || token >= shape.first_row + shape.rows) return;
    const uint base = (token - shape.first_row) * row_bytes(shape.columns);
    float v[32];
    for (uint group = gl_LocalInvocationID.x; group * 32 < shape.columns; group += 64) {
        dequantize_group(base, group, shape.columns, v);
        for (uint i = 0; i < 32 && group * 32 + i < shape.columns; ++i)
            x[t * shape.columns + group * 32 + i] = v[i] * shape.scale;
    }
}
