// What every compute backend offers the decode loop: per-sequence state (its KV cache, in the
// backend's own layout) and a forward pass over new tokens of a sequence.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "engine/reference_forward.h"

namespace hearth {

class Sequence {
public:
    virtual ~Sequence() = default;
    virtual int size() const = 0;      // tokens cached
    virtual int capacity() const = 0;  // the context length
    virtual void truncate(int length) = 0;
};

class Backend {
public:
    virtual ~Backend() = default;
    virtual std::string name() const = 0;
    virtual std::unique_ptr<Sequence> create_sequence(int capacity) = 0;
    // Runs `tokens` after what `sequence` holds; logits row after row (vocab floats each).
    // Throws ContextFullError, leaving the sequence as it was, when they do not fit.
    virtual std::vector<float> forward(std::span<const int32_t> tokens, Sequence& sequence,
                                       LogitRows rows) = 0;
};

// The plain float32 forward pass as a backend: the oracle, and a fallback that runs anywhere.
class ReferenceBackend final : public Backend {
public:
    explicit ReferenceBackend(const Model& model) : m_forward(model) {}
    std::string name() const override { return "reference"; }
    std::unique_ptr<Sequence> create_sequence(int capacity) override;
    std::vector<float> forward(std::span<const int32_t> tokens, Sequence& sequence,
                               LogitRows rows) override;

private:
    ReferenceForward m_forward;
};

}  // namespace hearth
