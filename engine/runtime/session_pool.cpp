#include "engine/runtime/session_pool.h"

#include <algorithm>

namespace hearth {

SessionPool::SessionPool(size_t budget_bytes) : m_budget(budget_bytes) {}

Session& SessionPool::acquire(int64_t id, int context_length, Backend& backend,
                              const Tokenizer& tokenizer) {
    const auto found = std::find_if(m_entries.begin(), m_entries.end(),
                                    [&](const Entry& entry) { return entry.id == id; });
    if (found != m_entries.end()) {
        if (found->session->context_length() == context_length) {
            m_entries.splice(m_entries.begin(), m_entries, found);
            return *m_entries.front().session;
        }
        m_entries.erase(found);  // a new context length needs a new cache
    }
    // Room is made before the new cache is allocated, so a GPU never holds both. Every session
    // shares the backend, so a cache's size per token is the same for all of them.
    if (!m_entries.empty()) {
        const Session& any = *m_entries.front().session;
        evict_for(any.memory_bytes() / static_cast<size_t>(any.context_length()) *
                  static_cast<size_t>(context_length));
    }
    m_entries.push_front({id, std::make_unique<Session>(backend, tokenizer, context_length)});
    return *m_entries.front().session;
}

size_t SessionPool::bytes() const {
    size_t total = 0;
    for (const auto& entry : m_entries) total += entry.session->memory_bytes();
    return total;
}

bool SessionPool::holds(int64_t id) const {
    return std::any_of(m_entries.begin(), m_entries.end(),
                       [&](const Entry& entry) { return entry.id == id; });
}

void SessionPool::evict_for(size_t incoming_bytes) {
    size_t total = bytes();
    while (!m_entries.empty() && total + incoming_bytes > m_budget) {
        total -= m_entries.back().session->memory_bytes();
        m_entries.pop_back();
    }
}

}  // namespace hearth
