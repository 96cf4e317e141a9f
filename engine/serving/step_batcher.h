// Gathers the forward passes that many rows ask for, each on its own thread, into batched steps
// of one backend (Backend::forward_batch). A step runs once every active row has asked (so each
// step carries one token of every decoding row), with every single-token call and as many
// prompt chunks as fit the step's token budget; the rest wait for the next step.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <exception>
#include <mutex>
#include <span>
#include <thread>
#include <vector>

#include "engine/compute/backend.h"

namespace hearth {

class StepBatcher final {
public:
    // `step_tokens`: prompt tokens one step takes beside the single-token calls (at least one
    // call always runs, whatever its size).
    StepBatcher(Backend& backend, int step_tokens);
    ~StepBatcher();
    StepBatcher(const StepBatcher&) = delete;
    StepBatcher& operator=(const StepBatcher&) = delete;

    // A row starts or ends a request: steps wait for the active rows only.
    void activate();
    void deactivate();
    // On a row's thread: blocks until a step has run these tokens, then returns the row's
    // logits (or throws its error, as Backend::forward would).
    std::vector<float> forward(std::span<const int32_t> tokens, Sequence& sequence, LogitRows rows);

    uint64_t steps() const;
    // Held while a row changes its sequence outside a step: no step runs meanwhile.
    std::unique_lock<std::mutex> between_steps() { return std::unique_lock(m_step_mutex); }

private:
    struct Call {
        BatchRow row;
        std::vector<float> logits;
        std::exception_ptr error;
        bool done = false;
    };
    void run();
    bool step_ready() const;
    std::vector<Call*> take_step();
    void execute(std::span<Call* const> calls);

    Backend& m_backend;
    int m_step_tokens;
    std::mutex m_step_mutex;  // held by a running step
    mutable std::mutex m_mutex;
    std::condition_variable m_asked;  // the step thread waits here
    std::condition_variable m_ran;    // rows wait here for their call to be done
    std::vector<Call*> m_pending;     // in the order asked
    int m_active = 0;
    uint64_t m_steps = 0;
    bool m_stopping = false;
    std::thread m_thread;  // last: starts once everything above exists
};

}  // namespace hearth
