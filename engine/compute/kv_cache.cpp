#include "engine/compute/kv_cache.h"

#include <algorithm>
#include <string>

#include "kernels/dequantize.h"
#include "kernels/half.h"
#include "kernels/quantize.h"

namespace hearth {
namespace {

// Checked before anything is allocated, so a bad size cannot wrap into a huge allocation.
const std::vector<int>& checked_shape(const std::vector<int>& windows, int capacity, int kv_dim) {
    if (windows.empty() || capacity <= 0 || kv_dim <= 0) {
        throw std::invalid_argument("a KV cache needs positive layer count, capacity and width");
    }
    return windows;
}

}  // namespace

size_t kv_cache_bytes(const std::vector<int>& windows, int step, int capacity,
                      size_t bytes_per_position) {
    size_t positions = 0;
    for (const int window : windows) {
        const int slots = layer_slots(window, step, capacity);
        positions += static_cast<size_t>(slots);
        if (slots < capacity) positions += kMaxCheckpoints * static_cast<size_t>(window);
    }
    return positions * bytes_per_position;
}

void write_values(const float* values, float* out, size_t count) {
    std::copy_n(values, count, out);
}
void write_values(const float* values, uint16_t* out, size_t count) {
    kernels::floats_to_halves(values, out, count);
}
void write_values(const float* values, kernels::BlockQ8_0* out, size_t count) {
    kernels::quantize_q8_0(values, out, count);
}
void read_values(const float* elements, float* out, size_t count) {
    std::copy_n(elements, count, out);
}
void read_values(const uint16_t* elements, float* out, size_t count) {
    for (size_t i = 0; i < count; ++i) out[i] = kernels::half_to_float(elements[i]);
}
void read_values(const kernels::BlockQ8_0* elements, float* out, size_t count) {
    kernels::dequantize_q8_0(elements, out, count);
}

template <typename Element>
BasicKvCache<Element>::BasicKvCache(int layer_count, int capacity, int kv_dim)
    : BasicKvCache(std::vector<int>(static_cast<size_t>(std::max(layer_count, 0)), 0), 1, capacity,
                   kv_dim) {}

template <typename Element>
BasicKvCache<Element>::BasicKvCache(const std::vector<int>& windows, int step, int capacity,
                                    int kv_dim)
    : BasicKvCache(KvRings(checked_shape(windows, capacity, kv_dim), step, capacity), kv_dim) {}

template <typename Element>
BasicKvCache<Element>::BasicKvCache(const KvRings& rings, int kv_dim)
    : m_rings(rings), m_kv_dim(kv_dim), m_row_size(kv_dim / kValuesPerElement<Element>) {
    if (kv_dim <= 0) throw std::invalid_argument("a KV cache needs a positive width");
    if (kv_dim % kValuesPerElement<Element> != 0) {
        throw std::invalid_argument("a KV cache of blocks needs rows of whole blocks");
    }
    size_t slots = 0;
    for (int layer = 0; layer < rings.layer_count(); ++layer) {
        m_offsets.push_back(slots * static_cast<size_t>(m_row_size));
        slots += static_cast<size_t>(rings.slot_count(layer));
    }
    m_keys.resize(slots * static_cast<size_t>(m_row_size));
    m_values.resize(m_keys.size());
}

ContextFullError::ContextFullError(const ContextShortfall& facts)
    : std::runtime_error("the context is full: " + std::to_string(facts.needed) +
                         " tokens do not fit a context of " + std::to_string(facts.capacity)),
      m_facts(facts) {}

void check_room(int cached, int capacity, int count) {
    if (count < 0 || count > capacity - cached)
        throw ContextFullError({.needed = cached + count, .capacity = capacity});
}

template <typename Element>
size_t BasicKvCache<Element>::bytes() const {
    size_t elements = m_keys.size() + m_values.size();
    for (const Stored& stored : m_stored) elements += stored.keys.size() + stored.values.size();
    return elements * sizeof(Element);
}

template <typename Element>
void BasicKvCache<Element>::prefetch_for_write(int layer, int position, int count) const {
    constexpr size_t kLine = 64;
    const size_t bytes = static_cast<size_t>(m_row_size) * sizeof(Element);
    for (int p = position; p < position + count; ++p) {
        const auto* key = reinterpret_cast<const std::byte*>(&m_keys[offset(layer, p)]);
        const auto* value = reinterpret_cast<const std::byte*>(&m_values[offset(layer, p)]);
        for (size_t at = 0; at < bytes; at += kLine) {
            __builtin_prefetch(key + at, 1);
            __builtin_prefetch(value + at, 1);
        }
    }
}

template <typename Element>
void BasicKvCache<Element>::reserve_positions(int count) const {
    check_room(size(), capacity(), count);
}

template <typename Element>
void BasicKvCache<Element>::truncate(int length) {
    const auto restored = m_rings.truncate(length);
    if (restored) restore(*restored);
    release_unused();
}

template <typename Element>
void BasicKvCache<Element>::checkpoint() {
    const auto storage = m_rings.checkpoint();
    if (!storage) return;
    Stored& stored = m_stored[static_cast<size_t>(*storage)];
    stored.keys.clear();
    stored.values.clear();
    for (int l = 0; l < layer_count(); ++l) {
        if (!m_rings.is_ring(l)) continue;
        for (int position = std::max(0, size() - m_rings.window(l)); position < size();
             ++position) {
            const size_t at = offset(l, position);
            stored.keys.insert(stored.keys.end(), &m_keys[at], &m_keys[at] + m_row_size);
            stored.values.insert(stored.values.end(), &m_values[at], &m_values[at] + m_row_size);
        }
    }
    release_unused();  // one pushed out by this one
}

// Writes back each ring's saved positions below the current size (the checkpoint's size or one
// less), which then hold the window before it.
template <typename Element>
void BasicKvCache<Element>::restore(const KvRings::Restore& restore) {
    const Stored& stored = m_stored[static_cast<size_t>(restore.storage)];
    size_t read = 0;
    for (int l = 0; l < layer_count(); ++l) {
        if (!m_rings.is_ring(l)) continue;
        const int first = std::max(0, restore.saved - m_rings.window(l));
        for (int position = first; position < restore.saved; ++position, read += m_row_size) {
            if (position >= size()) continue;
            const size_t at = offset(l, position);
            std::copy_n(&stored.keys[read], m_row_size, &m_keys[at]);
            std::copy_n(&stored.values[read], m_row_size, &m_values[at]);
        }
    }
}

template <typename Element>
void BasicKvCache<Element>::release_unused() {
    for (size_t storage = 0; storage < m_stored.size(); ++storage) {
        if (m_rings.stores(static_cast<int>(storage))) continue;
        m_stored[storage] = Stored{};
    }
}

template <typename Element>
void BasicKvCache<Element>::erase(int start, int count) {
    const int old_size = size();
    std::vector<int> old_oldest;
    for (int l = 0; l < layer_count(); ++l) old_oldest.push_back(m_rings.oldest(l));
    m_rings.erase(start, count);  // checks the range before anything moves
    release_unused();
    std::vector<Element> keys, values;
    for (int l = 0; l < layer_count(); ++l) {
        if (!m_rings.is_ring(l)) {
            for (auto* data : {&m_keys, &m_values}) {
                auto* first = data->data() + offset(l, start);
                std::copy_n(first + static_cast<size_t>(count) * m_row_size,
                            static_cast<size_t>(old_size - start - count) * m_row_size, first);
            }
            continue;
        }
        // A ring's later positions land in other slots, some of them still to be read: through
        // a copy of what moves.
        const int from = std::max(start + count, old_oldest[static_cast<size_t>(l)]);
        keys.clear();
        values.clear();
        for (int position = from; position < old_size; ++position) {
            const size_t at = offset(l, position);
            keys.insert(keys.end(), &m_keys[at], &m_keys[at] + m_row_size);
            values.insert(values.end(), &m_values[at], &m_values[at] + m_row_size);
        }
        for (int position = from; position < old_size; ++position) {
            const size_t read = static_cast<size_t>(position - from) * m_row_size;
            const size_t at = offset(l, position - count);
            std::copy_n(&keys[read], m_row_size, &m_keys[at]);
            std::copy_n(&values[read], m_row_size, &m_values[at]);
        }
    }
}

template class BasicKvCache<float>;
template class BasicKvCache<uint16_t>;
template class BasicKvCache<kernels::BlockQ8_0>;

}  // namespace hearth
