// An answer's figures in words: under each answer and in the status line once it ends. The
// engine sends raw counts and nanoseconds; they are worded here.
#pragma once

#include <QString>

#include "engine/generation/generation_stats.h"

namespace hearth::ui {

// Why an answer ended, as a reader says it ("cut off at the token limit").
QString stop_reason_text(StopReason reason);

// "61 tokens · 30.0 tok/s · first token in 42 ms · 100 of 113 prompt tokens reused · ended by
// the model".
QString answer_figures_text(const GenerationStats& stats);

}  // namespace hearth::ui
