// Keys and values of one sequence, per layer and position, in float32 (the reference layout).
// The cache is the one place where KV state changes: append through the forward pass,
// shrink through truncate().
#pragma once

#include <stdexcept>
#include <vector>

namespace hearth {

// Thrown when a forward pass would go past the cache's capacity (the context length).
class ContextFullError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

class KvCache final {
public:
    KvCache(int layer_count, int capacity, int kv_dim);

    int capacity() const { return m_capacity; }
    int size() const { return m_size; }
    int kv_dim() const { return m_kv_dim; }

    float* key(int layer, int position) { return &m_keys[offset(layer, position)]; }
    float* value(int layer, int position) { return &m_values[offset(layer, position)]; }
    const float* key(int layer, int position) const { return &m_keys[offset(layer, position)]; }
    const float* value(int layer, int position) const { return &m_values[offset(layer, position)]; }

    // Makes room for `count` more positions; throws ContextFullError when they do not fit.
    void reserve_positions(int count) const;
    void commit(int count) { m_size += count; }
    // Forgets every position from `length` on, e.g. to fork a conversation.
    void truncate(int length);

private:
    size_t offset(int layer, int position) const {
        return (static_cast<size_t>(layer) * m_capacity + position) * m_kv_dim;
    }

    int m_capacity;
    int m_kv_dim;
    int m_size = 0;
    std::vector<float> m_keys;    // (layer, capacity, kv_dim)
    std::vector<float> m_values;  // (layer, capacity, kv_dim)
};

}  // namespace hearth
