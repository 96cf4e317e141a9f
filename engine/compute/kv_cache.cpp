#include "engine/compute/kv_cache.h"

#include <algorithm>
#include <string>

namespace hearth {
namespace {

// Checked before anything is allocated, so a bad size cannot wrap into a huge allocation.
size_t elements(int layer_count, int capacity, int kv_dim) {
    if (layer_count <= 0 || capacity <= 0 || kv_dim <= 0) {
        throw std::invalid_argument("a KV cache needs positive layer count, capacity and width");
    }
    return static_cast<size_t>(layer_count) * static_cast<size_t>(capacity) *
           static_cast<size_t>(kv_dim);
}

}  // namespace

template <typename Element>
BasicKvCache<Element>::BasicKvCache(int layer_count, int capacity, int kv_dim)
    : m_layer_count(layer_count),
      m_capacity(capacity),
      m_kv_dim(kv_dim),
      m_keys(elements(layer_count, capacity, kv_dim)),
      m_values(m_keys.size()) {}

ContextFullError::ContextFullError(const ContextShortfall& facts)
    : std::runtime_error("the context is full: " + std::to_string(facts.needed) +
                         " tokens do not fit a context of " + std::to_string(facts.capacity)),
      m_facts(facts) {}

void check_room(int cached, int capacity, int count) {
    if (count < 0 || count > capacity - cached)
        throw ContextFullError({.needed = cached + count, .capacity = capacity});
}

template <typename Element>
void BasicKvCache<Element>::reserve_positions(int count) const {
    check_room(m_size, m_capacity, count);
}

template <typename Element>
void BasicKvCache<Element>::truncate(int length) {
    if (length < 0 || length > m_size) throw std::out_of_range("KvCache::truncate past its end");
    m_size = length;
}

template <typename Element>
void BasicKvCache<Element>::erase(int start, int count) {
    if (start < 0 || count < 0 || start + count > m_size) {
        throw std::out_of_range("KvCache::erase past its end");
    }
    const int moved = m_size - start - count;
    for (int layer = 0; layer < m_layer_count; ++layer) {
        for (auto* data : {&m_keys, &m_values}) {
            auto* first = data->data() + offset(layer, start);
            std::copy_n(first + static_cast<size_t>(count) * m_kv_dim,
                        static_cast<size_t>(moved) * m_kv_dim, first);
        }
    }
    m_size -= count;
}

template class BasicKvCache<float>;
template class BasicKvCache<uint16_t>;

}  // namespace hearth
