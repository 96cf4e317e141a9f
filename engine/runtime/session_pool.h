// The conversations whose KV caches stay warm: the most recently used first, as many as fit a
// byte budget (caches differ in size with their context length, so a count would be wrong).
// The one in use is never evicted, even when it alone is over the budget.
#pragma once

#include <cstddef>
#include <cstdint>
#include <list>
#include <memory>

#include "engine/compute/backend.h"
#include "engine/generation/session.h"
#include "engine/text/tokenizer.h"

namespace hearth {

// Enough for a few conversations of a small model at 4096 tokens, without a desktop swapping.
inline constexpr size_t kDefaultSessionBudgetBytes = size_t{1} << 30;

class SessionPool final {
public:
    explicit SessionPool(size_t budget_bytes = kDefaultSessionBudgetBytes);

    // Conversation `id`'s session at `context_length` tokens: its warm one when it has one of
    // that length, else a new one (evicting the least recently used that no longer fit). The
    // backend and tokenizer must outlive the pool's sessions (clear() it before they go).
    Session& acquire(int64_t id, int context_length, Backend& backend, const Tokenizer& tokenizer);
    void clear() { m_entries.clear(); }

    size_t size() const { return m_entries.size(); }
    size_t bytes() const;
    size_t budget_bytes() const { return m_budget; }
    bool holds(int64_t id) const;

private:
    struct Entry {
        int64_t id;
        std::unique_ptr<Session> session;
    };
    void evict_for(size_t incoming_bytes);

    size_t m_budget;
    std::list<Entry> m_entries;  // most recently used first
};

}  // namespace hearth
