// The backend as one user row sees it: sequences are the real backend's, but every forward pass
// goes through the step batcher, which runs it in a batched step with the other rows'. Its
// prefill chunks are the backend's capped at the step budget, the same whatever else runs, so
// a request's numbers never depend on its neighbours.
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
    std::unique_ptr<Sequence> create_sequence(int capacity) override {
        return m_backend.create_sequence(capacity);
    }
    std::vector<float> forward(std::span<const int32_t> tokens, Sequence& sequence,
                               LogitRows rows) override {
        return m_batcher.forward(tokens, sequence, rows);
    }
    std::vector<int> chunk_sizes() const override { return m_chunk_sizes; }

private:
    Backend& m_backend;
    StepBatcher& m_batcher;
    std::vector<int> m_chunk_sizes;
};

}  // namespace hearth
