#include "engine/generation/model_drafter.h"

#include <algorithm>

#include "engine/generation/prefill.h"

namespace hearth {

ModelDrafter::ModelDrafter(Backend& backend, int capacity, int vocabulary_size)
    : m_backend(backend), m_capacity(capacity), m_vocabulary_size(vocabulary_size) {}

std::vector<float> ModelDrafter::catch_up(std::span<const int32_t> history) {
    const auto differs =
        std::mismatch(m_cached.begin(), m_cached.end(), history.begin(), history.end() - 1);
    // At least the last token runs again: its logits are the first draft's.
    const int kept = m_sequence->keepable(static_cast<int>(differs.first - m_cached.begin()));
    m_sequence->truncate(kept);
    m_cached.resize(static_cast<size_t>(kept));
    const auto fresh = history.subspan(static_cast<size_t>(kept));
    m_cached.insert(m_cached.end(), fresh.begin(), fresh.end());
    // In the planner's steps, as a prompt runs: the first proposal catches up a whole prompt.
    return *run_prefill(m_backend, *m_sequence, fresh);
}

std::vector<int32_t> ModelDrafter::propose(std::span<const int32_t> history, int max_tokens) {
    std::vector<int32_t> drafts;
    // A conversation past the draft's context, or an empty one, gets no guesses.
    const int room = m_capacity - static_cast<int>(history.size());
    max_tokens = std::min(max_tokens, room);
    if (history.empty() || max_tokens <= 0) return drafts;
    // The cache is made at the first proposal: an answer that never drafts (a sampled one, where
    // the decode loop does not speculate) costs no KV memory.
    if (!m_sequence) m_sequence = m_backend.create_sequence(m_capacity);
    std::vector<float> logits = catch_up(history);
    while (true) {
        const int32_t token = argmax(logits);
        if (token >= m_vocabulary_size) break;
        drafts.push_back(token);
        if (static_cast<int>(drafts.size()) == max_tokens) break;
        const int32_t input[] = {token};
        logits = m_backend.forward(input, *m_sequence, LogitRows::Last);
        m_cached.push_back(token);
    }
    return drafts;
}

}  // namespace hearth
