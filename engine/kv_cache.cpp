#include "engine/kv_cache.h"

#include <string>

namespace hearth {

KvCache::KvCache(int layer_count, int capacity, int kv_dim)
    : m_capacity(capacity),
      m_kv_dim(kv_dim),
      m_keys(static_cast<size_t>(layer_count) * capacity * kv_dim),
      m_values(m_keys.size()) {
    if (layer_count <= 0 || capacity <= 0 || kv_dim <= 0) {
        throw std::invalid_argument("KvCache needs positive layer count, capacity and width");
    }
}

void KvCache::reserve_positions(int count) const {
    if (count < 0 || count > m_capacity - m_size) {
        throw ContextFullError("the context is full: " + std::to_string(m_size) +
                               " tokens cached + " + std::to_string(count) +
                               " new exceed the context length of " + std::to_string(m_capacity) +
                               " tokens");
    }
}

void KvCache::truncate(int length) {
    if (length < 0 || length > m_size) throw std::out_of_range("KvCache::truncate past its end");
    m_size = length;
}

}  // namespace hearth
