// The backend as one user row sees it: every forward pass goes through the step batcher, which
// runs it in a batched step with the other rows'. Its prefill chunks are the backend's capped at
// the step budget, the same whatever else runs, so a request's numbers never depend on its
// neighbours. Its sequences wrap the real backend's: what a row does to its cache between steps
// (truncate, erase, checkpoint) waits for the running step, since a device backend's sequences
// share the device with it.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "engine/compute/backend.h"
#include "engine/serving/step_batcher.h"

namespace hearth {

class RowBackend final : public Backend {
public:
    RowBackend(Backend& backend, StepBatcher& batcher, int step_tokens);

    std::string name() const override { return m_backend.name(); }
    std::unique_ptr<Sequence> create_sequence(int capacity) override;
    std::vector<float> forward(std::span<const int32_t> tokens, Sequence& sequence,
                               LogitRows rows) override;
    std::vector<int> chunk_sizes() const override { return m_chunk_sizes; }

private:
    Backend& m_backend;
    StepBatcher& m_batcher;
    std::vector<int> m_chunk_sizes;
};

}  // namespace hearth
