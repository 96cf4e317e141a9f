// Drafts from a smaller model of the same vocabulary: its greedy continuation of the
// conversation. Its own KV cache follows the conversation: each proposal reuses the prefix it
// already holds and runs only what changed (the tokens accepted since, the correction), so a
// drafted token costs one decode step of the small model.
#pragma once

#include <memory>

#include "engine/compute/backend.h"
#include "engine/generation/drafter.h"

namespace hearth {

class ModelDrafter final : public Drafter {
public:
    // `backend` runs the draft model and must outlive this drafter; `capacity` is its context;
    // proposals stop at `vocabulary_size` (the verifying model's), should the draft's be larger.
    ModelDrafter(Backend& backend, int capacity, int vocabulary_size);

    std::vector<int32_t> propose(std::span<const int32_t> history, int max_tokens) override;

private:
    // Brings the cache to hold history[0, n - 1) and returns the logits after history's last.
    std::vector<float> catch_up(std::span<const int32_t> history);

    Backend& m_backend;
    int m_capacity;
    std::unique_ptr<Sequence> m_sequence;  // made at the first proposal
    std::vector<int32_t> m_cached;         // the tokens the draft cache holds, in order
    int m_vocabulary_size;
};

}  // namespace hearth
