// The plain float32 forward pass as a backend: the oracle, and a fallback that runs anywhere.
#pragma once

#include "engine/compute/backend.h"
#include "engine/model/model.h"
#include "engine/model/reference_forward.h"
#include "engine/model/rope.h"

namespace hearth {

class ReferenceBackend final : public Backend {
public:
    explicit ReferenceBackend(const Model& model) : m_model(model), m_forward(model) {}
    std::string name() const override { return "reference"; }
    std::unique_ptr<Sequence> create_sequence(int capacity) override;
    std::vector<float> forward(std::span<const int32_t> tokens, Sequence& sequence,
                               LogitRows rows) override;

private:
    const Model& m_model;
    ReferenceForward m_forward;
};

}  // namespace hearth
