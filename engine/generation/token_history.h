// One conversation's tokens and which of them the KV cache holds. Overflow can take tokens out
// of the cache from the middle; they stay in the conversation, marked dropped, so the next turn's
// prompt (the whole conversation again) still lines up with the cache.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace hearth {

class TokenHistory final {
public:
    // Tokens that follow; `cached` says whether they are (or are about to be) in the cache.
    void append(std::span<const int32_t> tokens, bool cached = true);
    void append(int32_t token) { append(std::span(&token, 1)); }
    // The cache now holds only its first `size` positions: the conversation ends after them.
    void truncate_cached(int size);
    // Cache positions [start, start + count) were dropped from the cache.
    void erase_cached(int start, int count);
    // Keeps only the longest prefix the conversation shares with `prompt`; returns its length.
    int fork(std::span<const int32_t> prompt);
    void clear();

    std::span<const int32_t> conversation() const { return m_tokens; }
    const std::vector<int32_t>& cached() const { return m_cached; }
    int cached_size() const { return static_cast<int>(m_cached.size()); }
    // How many of the conversation's first `length` tokens are cached.
    int cached_before(int length) const;
    // How many of the conversation's first tokens are cached with no gap: the cache holds them
    // at their own positions, exactly as a fresh prefill of them would.
    int cached_prefix() const;

private:
    std::vector<int32_t> m_tokens;    // the conversation
    std::vector<uint8_t> m_in_cache;  // per token of the conversation
    std::vector<int32_t> m_cached;    // the cached ones, in cache order
};

}  // namespace hearth
