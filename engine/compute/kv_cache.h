// Keys and values of one sequence, per layer and position, laid out (layer, position, kv_dim).
// The cache is the one place where KV state changes: append through the forward pass,
// shrink through truncate(). The element type is the backend's choice: float for the
// reference pass, f16 bits for the CPU backend.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <vector>

namespace hearth {

// The facts of a conversation that does not fit its context; front ends phrase them.
struct ContextShortfall {
    int needed = 0;    // tokens the context would have to hold
    int capacity = 0;  // the context length
    // Under a dropping overflow policy (stop_policy false): the tokens never dropped (the kept
    // start) and the latest message's, which together left no room.
    int kept = 0;
    int latest = 0;
    bool stop_policy = true;
};

// Thrown when a forward pass would go past the cache's capacity (the context length), or a
// prompt cannot fit under its overflow policy.
class ContextFullError : public std::runtime_error {
public:
    explicit ContextFullError(const ContextShortfall& facts);
    const ContextShortfall& facts() const { return m_facts; }

private:
    ContextShortfall m_facts;
};

// Throws ContextFullError, naming the numbers, unless `count` more positions fit after `cached`
// in a context of `capacity`: the one check every backend's cache makes.
void check_room(int cached, int capacity, int count);

template <typename Element>
class BasicKvCache final {
public:
    BasicKvCache(int layer_count, int capacity, int kv_dim);

    int layer_count() const { return m_layer_count; }
    int capacity() const { return m_capacity; }
    int size() const { return m_size; }
    int kv_dim() const { return m_kv_dim; }

    Element* key(int layer, int position) { return &m_keys[offset(layer, position)]; }
    Element* value(int layer, int position) { return &m_values[offset(layer, position)]; }
    const Element* key(int layer, int position) const { return &m_keys[offset(layer, position)]; }
    const Element* value(int layer, int position) const {
        return &m_values[offset(layer, position)];
    }

    // Makes room for `count` more positions; throws ContextFullError when they do not fit.
    void reserve_positions(int count) const;
    void commit(int count) { m_size += count; }
    // Forgets every position from `length` on, e.g. to fork a conversation.
    void truncate(int length);
    // Forgets positions [start, start + count) and moves the later ones down (keys as they
    // were: re-rotating them for their new positions is the caller's part).
    void erase(int start, int count);

private:
    size_t offset(int layer, int position) const {
        return (static_cast<size_t>(layer) * m_capacity + position) * m_kv_dim;
    }

    int m_layer_count;
    int m_capacity;
    int m_kv_dim;
    int m_size = 0;
    std::vector<Element> m_keys;    // (layer, capacity, kv_dim)
    std::vector<Element> m_values;  // (layer, capacity, kv_dim)
};

using KvCache = BasicKvCache<float>;
using KvCacheF16 = BasicKvCache<uint16_t>;  // IEEE half bits

extern template class BasicKvCache<float>;
extern template class BasicKvCache<uint16_t>;

}  // namespace hearth
