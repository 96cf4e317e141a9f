// The going-back rule of sliding-window rings (engine/compute/kv_cache.h), checked the same way
// on every backend that keeps them: the shared Gemma files' local layers see their last 32
// positions, and steps of up to 64 tokens give rings of 256 slots.
#pragma once

#include <cstddef>
#include <vector>

#include "engine/compute/backend.h"
#include "engine/text/tokenizer.h"

namespace hearth::test {

inline constexpr int kWindow = 32;
inline constexpr int kRing = 256;

// A conversation's lengths: its first prompt and answer, the follow-up message, the follow-up's
// answer (more than kRing - kWindow tokens, so the rings lose the prompt's end), and the answers
// after it.
struct ConversationShape {
    int prompt, answer, message, wrapping_answer, later_answers;
};

// A conversation on `backend` (contexts of 1024): a follow-up turn that prefills only its
// message; a regenerate after the answer that wraps the rings, which runs only the prompt's last
// token again (from its checkpoint); an edit of the latest message more than a window before its
// end (back to the turn's start, only the message again); an edit of the first prompt (all
// again). Every answer equals a cold session's on the same backend. Returns the session's
// memory at the end, checkpoints included.
size_t expect_the_going_back_rule(Backend& backend, const Tokenizer& tokenizer,
                                  const ConversationShape& shape);

// A rolling-window drop: `length` tokens on a fresh sequence (context 512), positions
// [keep, keep + dropped) erased, then half a window more; the logits of those last tokens.
std::vector<float> logits_after_erase(Backend& backend, int length, int keep, int dropped);

// The largest |a[i] - b[i]| (a gtest failure when the sizes differ).
float largest_difference(const std::vector<float>& a, const std::vector<float>& b);

}  // namespace hearth::test
