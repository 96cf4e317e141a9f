// An answer the token limit cut off, and Continue, which makes the same answer longer: whether
// an answer can be continued, and its figures once it has been.
#pragma once

#include "app/core/conversation.h"
#include "engine/generation/generation_stats.h"

namespace hearth::core {

// The answer stopped at the token limit: more of it can be asked for. (Stopped by the user, it
// is marked unfinished instead; ended by the model or a full context, there is no more to ask.)
bool can_continue(const Message& message);

// The figures of an answer made of `before` and its continuation `after`: the tokens, decode
// time and per-token times of both parts; the prompt, the cache reuse, the first token and why
// it stopped are the continuation's, the latest request's.
GenerationStats continued_stats(const GenerationStats& before, const GenerationStats& after);

}  // namespace hearth::core
