// How long a backend takes for a typical turn of a chat with a model: a 512-token prompt, then a
// 128-token answer, projected from a short run (32 prompt tokens, 24 generated) through the same
// speed measurements as hearth-bench. Automatic backend choice compares GPU and CPU by it.
#pragma once

#include "engine/compute/backend.h"
#include "engine/runtime/speed_measurement.h"

namespace hearth {

constexpr int kTypicalTurnPrompt = 512;
constexpr int kTypicalTurnAnswer = 128;

// `warm_up`: an untimed run first (a device; the CPU's mapped weights are touched at load).
// Throws SpeedTestCancelled when `control` cancels.
double typical_turn_seconds(Backend& backend, int vocab_size, bool warm_up,
                            const SpeedControl& control = {});

}  // namespace hearth
