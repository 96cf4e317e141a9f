#include "engine/generation/token_history.h"

#include <algorithm>
#include <stdexcept>

namespace hearth {

void TokenHistory::append(std::span<const int32_t> tokens, bool cached) {
    m_tokens.insert(m_tokens.end(), tokens.begin(), tokens.end());
    m_in_cache.insert(m_in_cache.end(), tokens.size(), cached ? 1 : 0);
    if (cached) m_cached.insert(m_cached.end(), tokens.begin(), tokens.end());
}

void TokenHistory::truncate_cached(int size) {
    if (size < 0 || size > cached_size()) throw std::out_of_range("TokenHistory: bad cache size");
    size_t end = 0;
    for (int seen = 0; end < m_tokens.size() && seen < size; ++end) seen += m_in_cache[end];
    // Dropped tokens right after the kept part go too: they belonged to what follows.
    m_tokens.resize(end);
    m_in_cache.resize(end);
    m_cached.resize(static_cast<size_t>(size));
}

void TokenHistory::erase_cached(int start, int count) {
    if (start < 0 || count < 0 || start + count > cached_size()) {
        throw std::out_of_range("TokenHistory: erase past the cache");
    }
    int position = 0;
    for (size_t i = 0; i < m_tokens.size() && position < start + count; ++i) {
        if (!m_in_cache[i]) continue;
        if (position >= start) m_in_cache[i] = 0;
        ++position;
    }
    m_cached.erase(m_cached.begin() + start, m_cached.begin() + start + count);
}

int TokenHistory::fork(std::span<const int32_t> prompt) {
    size_t shared = 0;
    while (shared < prompt.size() && shared < m_tokens.size() && prompt[shared] == m_tokens[shared])
        ++shared;
    const int cached = cached_before(static_cast<int>(shared));
    m_tokens.resize(shared);
    m_in_cache.resize(shared);
    m_cached.resize(static_cast<size_t>(cached));
    return static_cast<int>(shared);
}

void TokenHistory::clear() {
    m_tokens.clear();
    m_in_cache.clear();
    m_cached.clear();
}

int TokenHistory::cached_prefix() const {
    const auto gap = std::find(m_in_cache.begin(), m_in_cache.end(), uint8_t{0});
    return static_cast<int>(gap - m_in_cache.begin());
}

int TokenHistory::cached_before(int length) const {
    int count = 0;
    for (int i = 0; i < length && i < static_cast<int>(m_in_cache.size()); ++i)
        count += m_in_cache[static_cast<size_t>(i)];
    return count;
}

}  // namespace hearth
