// What draft-model speculation costs and gains on one model (hearth-bench --draft FILE):
// the cost of verifying k = 1, 2, 4, 8 drafted tokens in one batched pass against one plain
// decode step and the draft model's own step cost; a projection of the speed-up at a given
// acceptance rate from those costs; and measured runs where the draft's guesses are forced to
// agree with the model's answer at that rate (synthetic weights cannot show real acceptance),
// paying the draft model's real compute, to check the projection.
#pragma once

#include "bench/bench_options.h"
#include "engine/compute/backend.h"
#include "engine/model/model.h"

namespace hearth::bench {

void run_draft_speculation(const Model& model, Backend& backend, const BenchOptions& options);

}  // namespace hearth::bench
