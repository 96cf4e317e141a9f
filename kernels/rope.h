// The rotation step of rotary position embedding: each pair (a, b) of a head's leading dimensions
// becomes (a cos - b sin, a sin + b cos), with a token's cosines and sines computed once for all
// its heads. Pairs are adjacent dimensions (2i, 2i + 1), ggml's "normal" mode, or halves
// (i, i + pairs), NEOX's. Every version multiplies and adds exactly as the scalar one does (no
// fused multiply-add), so all give its bits: the reference pass rotates through the same
// definition. Per pair in scalar code with the pairing decided per pair, the rotation took 2% of
// SmolLM-135M's pp512.
#pragma once

#include <cstddef>

namespace hearth::kernels {

enum class RopePairing { Adjacent, Halves };

void rope_rotate(RopePairing pairing, float* head, const float* cosines, const float* sines,
                 size_t pairs);

// The per-ISA versions behind rope_rotate(); tests compare them.
namespace scalar {
void rope_rotate(RopePairing pairing, float* head, const float* cosines, const float* sines,
                 size_t pairs);
// Only pairs `first` to pairs - 1 of the head's `pairs`: the vector versions' tails.
void rope_rotate_from(RopePairing pairing, float* head, const float* cosines, const float* sines,
                      size_t first, size_t pairs);
}  // namespace scalar

namespace avx2 {
void rope_rotate(RopePairing pairing, float* head, const float* cosines, const float* sines,
                 size_t pairs);
}  // namespace avx2

}  // namespace hearth::kernels
