// The one definition of Hearth's speed figures, shared by the dashboard's benchmark button,
// hearth-bench and the server's metrics, so they can never disagree about what "pp512" means:
//   ppN     N synthetic prompt tokens prefilled into an empty sequence in the decode loop's
//           forward calls, the LM head on the last row only; tokens / seconds.
//   tgN@dD  N greedy tokens through Backend::decode (chain decode on a device) after D cached
//           tokens (at least one); tokens / seconds of the decoding alone.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <vector>

#include "engine/compute/backend.h"

namespace hearth {

struct SpeedControl {
    const std::atomic<bool>* cancel = nullptr;          // checked between forward calls and tokens
    std::function<void(int done, int total)> progress;  // tokens processed of the test's
};

class SpeedTestCancelled : public std::runtime_error {
public:
    SpeedTestCancelled() : std::runtime_error("the speed test was cancelled") {}
};

// The synthetic prompt every measurement uses: BOS, then `count` - 1 ids spread over the
// vocabulary past the first three (which are usually special tokens).
std::vector<int32_t> speed_test_prompt(int count, int vocab_size);

// Seconds for ppN@dD: N prompt tokens after D already cached (prefilled untimed; D = 0: an empty
// cache). Throws SpeedTestCancelled.
double time_prompt(Backend& backend, int vocab_size, int tokens, int depth = 0,
                   const SpeedControl& control = {});
// Seconds for tgN@dD. Throws SpeedTestCancelled.
double time_generation(Backend& backend, int vocab_size, int tokens, int depth,
                       const SpeedControl& control = {});

struct SpeedMeasurement {
    int prompt_tokens = 0;
    double prompt_seconds = 0;
    int generated_tokens = 0;
    double generation_seconds = 0;

    double prompt_tokens_per_second() const;
    double generation_tokens_per_second() const;
};

// ppN then tgM (at depth 0), with progress over both.
SpeedMeasurement measure_speed(Backend& backend, int vocab_size, int prompt_tokens,
                               int generated_tokens, const SpeedControl& control = {});

}  // namespace hearth
