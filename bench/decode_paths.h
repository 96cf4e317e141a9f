// The decode loop's paths side by side on one model, through the real Session: greedy,
// sampled, sampled under JSON mode, and speculative greedy, as tokens per second with the
// ratios that matter (JSON mode's cost, speculation's gain and acceptance rate).
#pragma once

#include "bench/bench_options.h"
#include "engine/compute/backend.h"
#include "engine/model/model.h"

namespace hearth::bench {

void run_decode_paths(const Model& model, Backend& backend, const BenchOptions& options);

}  // namespace hearth::bench
