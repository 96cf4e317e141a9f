// One block of flash attention over an F16 or Q8_0 KV cache: every query row sharing a KV head
// is scored against the block's keys and folded into its running maximum, denominator and
// weighted sum of values (the online softmax). The block's keys and values are converted to
// float once for all rows (a KV head serves a whole GQA group of heads, times several tokens
// in a prompt), which is where the batching pays; a Q8_0 cache's blocks are read as they are
// stored, so it costs no more than F16's halves to convert and half the bytes to fetch.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>

#include "kernels/dot.h"
#include "kernels/quant_blocks.h"

namespace hearth::kernels {

// The scratch (floats) a block needs, the widest head it serves, and how many positions one
// block may hold: keys and values of a block, converted, fill at most the scratch.
inline constexpr size_t kAttentionScratch = 16384;
inline constexpr size_t kMaxAttentionHeadDim = 256;
inline constexpr size_t attention_block_positions(size_t head_dim) {
    return head_dim <= 128 ? 64 : 32;
}

// One query row's state; `out` holds the unnormalised weighted sum (divide by `denominator`
// after the last block).
struct AttentionRow {
    const float* query;  // head_dim
    float* out;          // head_dim
    float maximum;       // of the scores so far (-infinity before the first block)
    float denominator;   // sum of exp(score - maximum) so far
    size_t visible;      // positions of this block the row may see (its causal limit)
    size_t hidden = 0;   // of those, how many at the block's start fall out of its window
};

// How scores are made: query · key × scale, then, with a cap c > 0, c·tanh(score / c) (Gemma 2).
struct AttentionScoring {
    float scale;
    float softcap = 0.0f;
};

inline float softcap_score(float score, float cap) {
    return cap > 0.0f ? cap * std::tanh(score / cap) : score;
}

// Folds `count` cached positions (keys and values: f16 rows `stride` elements apart, already at
// the head's offset) into each row's state, positions [hidden, visible) of each row. `scratch`
// holds kAttentionScratch floats; count ≤ attention_block_positions(head_dim).
using AttentionBlockFunction = void (*)(AttentionRow* rows, size_t row_count, const uint16_t* keys,
                                        const uint16_t* values, size_t stride, size_t count,
                                        size_t head_dim, AttentionScoring scoring, float* scratch);

// The same over Q8_0 blocks: each position's keys and values are head_dim / 32 blocks, positions
// `stride` blocks apart (head_dim a multiple of 32).
using AttentionBlockQ8_0Function = void (*)(AttentionRow* rows, size_t row_count,
                                            const BlockQ8_0* keys, const BlockQ8_0* values,
                                            size_t stride, size_t count, size_t head_dim,
                                            AttentionScoring scoring, float* scratch);

AttentionBlockFunction attention_block(Isa isa);
inline AttentionBlockFunction attention_block() {
    return attention_block(best_isa());
}
AttentionBlockQ8_0Function attention_block_q8_0(Isa isa);
inline AttentionBlockQ8_0Function attention_block_q8_0() {
    return attention_block_q8_0(best_isa());
}

}  // namespace hearth::kernels
