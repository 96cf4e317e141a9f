#include "engine/runtime/turn_time.h"

namespace hearth {
namespace {

// 24 answer tokens leave room for a device's chain decode: three 8-token chunks in flight less
// one position (a shorter sequence cannot hold what it writes ahead).
constexpr int kPromptSample = 32;
constexpr int kAnswerSample = 24;

}  // namespace

double typical_turn_seconds(Backend& backend, int vocab_size, bool warm_up,
                            const SpeedControl& control) {
    // A device's first submissions pay for work done once (driver compilation, first touches
    // of its memory), which a chat pays only once too.
    if (warm_up) measure_speed(backend, vocab_size, 8, kAnswerSample, control);
    const SpeedMeasurement speed =
        measure_speed(backend, vocab_size, kPromptSample, kAnswerSample, control);
    return speed.prompt_seconds * kTypicalTurnPrompt / speed.prompt_tokens +
           speed.generation_seconds * kTypicalTurnAnswer / speed.generated_tokens;
}

}  // namespace hearth
