// Groups a step's (token, expert) pairs by expert, so that each chosen expert's weights are read
// once per tile of up to TILE pairs instead of once per pair: counts the pairs of each expert,
// lays the experts out one after another (`order`, pair indices, each expert's in token order),
// and lists the tiles the grouped product (matmul.comp's EXPERTS variant) runs, one per
// workgroup row. One workgroup; the list is filled to `tiles` entries, the rest empty, as the
// product is dispatched for that bound (pairs / TILE + min(experts, pairs)) without the host
// reading the counts.
#version 450

#define TILE 8            // matmul.comp's
#define MAX_EXPERTS 1024  // ShaderSet refuses models with more
#define LANES 64

layout(local_size_x = LANES) in;

layout(std430, binding = 0) readonly buffer Chosen {
    uint chosen[];  // (tokens, used): expert ids, as route.comp wrote them
};
layout(std430, binding = 1) writeonly buffer Order {
    uint order[];
};
layout(std430, binding = 2) writeonly buffer Tiles {
    uint tiles[];  // per tile: expert, first entry of `order`, entries
};

layout(push_constant) uniform Shape {
    uint pairs;  // tokens * used
    uint experts;
    uint tiles;  // entries to fill
}
shape;

shared uint counts[MAX_EXPERTS];
shared uint starts[MAX_EXPERTS];
shared uint first_tiles[MAX_EXPERTS];
shared uint tile_count;

void main() {
    const uint lane = gl_LocalInvocationID.x;
    for (uint e = lane; e < shape.experts; e += LANES) {
        uint count = 0;
        for (uint pair = 0; pair < shape.pairs; ++pair) {
            if (chosen[pair] == e) ++count;
        }
        counts[e] = count;
    }
    barrier();
    if (lane == 0) {
        uint start = 0, tile = 0;
        for (uint e = 0; e < shape.experts; ++e) {
            starts[e] = start;
            first_tiles[e] = tile;
            start += counts[e];
            tile += (counts[e] + TILE - 1) / TILE;
        }
        tile_count = tile;
    }
    barrier();
    for (uint e = lane; e < shape.experts; e += LANES) {
        const uint start = starts[e], count = counts[e];
        uint entry = start;
        for (uint pair = 0; pair < shape.pairs && entry < start + count; ++pair) {
            if (chosen[pair] == e) order[entry++] = pair;
        }
        for (uint t = 0; t * TILE < count; ++t) {
            const uint tile = (first_tiles[e] + t) * 3;
            tiles[tile] = e;
            tiles[tile + 1] = start + t * TILE;
            tiles[tile + 2] = min(TILE, count - t * TILE);
        }
    }
    for (uint tile = tile_count + lane; tile < shape.tiles; tile += LANES) {
        tiles[tile * 3] = 0;
        tiles[tile * 3 + 1] = 0;
        tiles[tile * 3 + 2] = 0;
    }
}
