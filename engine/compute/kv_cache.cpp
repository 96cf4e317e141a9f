#include "engine/compute/kv_cache.h"

#include <algorithm>
#include <string>

namespace hearth {
namespace {

// Checked before anything is allocated, so a bad size cannot wrap into a huge allocation.
void check_shape(size_t layer_count, int capacity, int kv_dim) {
    if (layer_count == 0 || capacity <= 0 || kv_dim <= 0) {
        throw std::invalid_argument("a KV cache needs positive layer count, capacity and width");
    }
}

}  // namespace

int layer_slots(int window, int step, int capacity) {
    if (window <= 0) return capacity;
    // The window before a step's first token (window - 1 positions) and the step itself.
    const int64_t needed = int64_t{window} + std::max(step, 1) - 1;
    const int64_t ring = (needed + kRingAlignment - 1) / kRingAlignment * kRingAlignment;
    return ring < capacity ? static_cast<int>(ring) : capacity;
}

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

template <typename Element>
BasicKvCache<Element>::BasicKvCache(int layer_count, int capacity, int kv_dim)
    : BasicKvCache(std::vector<int>(static_cast<size_t>(std::max(layer_count, 0)), 0), 1, capacity,
                   kv_dim) {}

template <typename Element>
BasicKvCache<Element>::BasicKvCache(const std::vector<int>& windows, int step, int capacity,
                                    int kv_dim)
    : m_layer_count(static_cast<int>(windows.size())),
      m_capacity(capacity),
      m_kv_dim(kv_dim),
      m_largest_step(capacity) {
    check_shape(windows.size(), capacity, kv_dim);
    size_t slots = 0;
    for (const int window : windows) {
        const Layer layer{window, layer_slots(window, step, capacity), slots * kv_dim};
        if (is_ring(layer))
            m_largest_step = std::min(m_largest_step, layer.slot_count - window + 1);
        m_layers.push_back(layer);
        slots += static_cast<size_t>(layer.slot_count);
    }
    m_keys.resize(slots * static_cast<size_t>(kv_dim));
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
    for (const Checkpoint& checkpoint : m_checkpoints) {
        elements += checkpoint.keys.size() + checkpoint.values.size();
    }
    return elements * sizeof(Element);
}

template <typename Element>
void BasicKvCache<Element>::reserve_positions(int count) const {
    check_room(m_size, m_capacity, count);
}

template <typename Element>
void BasicKvCache<Element>::commit(int count) {
    m_size += count;
    for (Layer& layer : m_layers) {
        if (is_ring(layer)) layer.oldest = std::max(layer.oldest, m_size - layer.slot_count);
    }
}

template <typename Element>
bool BasicKvCache<Element>::holds_window_before(int length) const {
    return length == 0 || std::all_of(m_layers.begin(), m_layers.end(), [&](const Layer& layer) {
               return !is_ring(layer) || layer.oldest <= std::max(0, length - layer.window + 1);
           });
}

template <typename Element>
int BasicKvCache<Element>::keepable(int length) const {
    length = std::clamp(length, 0, m_size);
    if (holds_window_before(length)) return length;
    int best = 0;
    for (const Checkpoint& checkpoint : m_checkpoints) {
        const int kept = std::min(checkpoint.size, length);
        if (checkpoint.serves(kept)) best = std::max(best, kept);
    }
    return best;
}

template <typename Element>
void BasicKvCache<Element>::truncate(int length) {
    if (length < 0 || length > m_size) throw std::out_of_range("KvCache::truncate past its end");
    if (!holds_window_before(length)) {
        const auto usable =
            std::find_if(m_checkpoints.rbegin(), m_checkpoints.rend(),
                         [&](const Checkpoint& checkpoint) { return checkpoint.serves(length); });
        if (usable == m_checkpoints.rend()) {
            throw std::logic_error("KvCache::truncate to a length its rings no longer hold");
        }
        m_size = length;
        restore(*usable);
    }
    m_size = length;
    if (length == 0) {
        for (Layer& layer : m_layers) layer.oldest = 0;  // every slot is free again
    }
    // Checkpoints past the new end hold positions that may now be written differently.
    std::erase_if(m_checkpoints,
                  [&](const Checkpoint& checkpoint) { return checkpoint.saved - 1 > length; });
    for (Checkpoint& checkpoint : m_checkpoints)
        checkpoint.size = std::min(checkpoint.size, length);
}

template <typename Element>
void BasicKvCache<Element>::checkpoint() {
    const bool rings = std::any_of(m_layers.begin(), m_layers.end(),
                                   [&](const Layer& layer) { return is_ring(layer); });
    if (!rings || m_size == 0) return;
    // One that can already come back here is enough (a regenerate's fork, one before the last
    // checkpoint): a second would only push out an older one.
    if (std::any_of(m_checkpoints.begin(), m_checkpoints.end(),
                    [&](const Checkpoint& old) { return old.serves(m_size); })) {
        return;
    }
    Checkpoint checkpoint{m_size, m_size, {}, {}};
    for (int l = 0; l < m_layer_count; ++l) {
        const Layer& layer = m_layers[static_cast<size_t>(l)];
        if (!is_ring(layer)) continue;
        for (int position = std::max(0, m_size - layer.window); position < m_size; ++position) {
            const size_t at = offset(l, position);
            checkpoint.keys.insert(checkpoint.keys.end(), &m_keys[at], &m_keys[at] + m_kv_dim);
            checkpoint.values.insert(checkpoint.values.end(), &m_values[at],
                                     &m_values[at] + m_kv_dim);
        }
    }
    // One taken at this length before a truncate may hold entries since rewritten.
    std::erase_if(m_checkpoints, [&](const Checkpoint& old) { return old.saved == m_size; });
    if (m_checkpoints.size() == kMaxCheckpoints) m_checkpoints.erase(m_checkpoints.begin());
    m_checkpoints.push_back(std::move(checkpoint));
}

// Writes back each ring's saved positions below the current size (the checkpoint's size or one
// less), which then hold the window before it.
template <typename Element>
void BasicKvCache<Element>::restore(const Checkpoint& checkpoint) {
    size_t read = 0;
    for (int l = 0; l < m_layer_count; ++l) {
        Layer& layer = m_layers[static_cast<size_t>(l)];
        if (!is_ring(layer)) continue;
        const int first = std::max(0, checkpoint.saved - layer.window);
        for (int position = first; position < checkpoint.saved; ++position, read += m_kv_dim) {
            if (position >= m_size) continue;
            const size_t at = offset(l, position);
            std::copy_n(&checkpoint.keys[read], m_kv_dim, &m_keys[at]);
            std::copy_n(&checkpoint.values[read], m_kv_dim, &m_values[at]);
        }
        layer.oldest = first;
    }
}

template <typename Element>
void BasicKvCache<Element>::erase(int start, int count) {
    if (start < 0 || count < 0 || start + count > m_size) {
        throw std::out_of_range("KvCache::erase past its end");
    }
    const int moved_end = m_size - count;
    std::vector<Element> keys, values;
    for (int l = 0; l < m_layer_count; ++l) {
        Layer& layer = m_layers[static_cast<size_t>(l)];
        if (!is_ring(layer)) {
            for (auto* data : {&m_keys, &m_values}) {
                auto* first = data->data() + offset(l, start);
                std::copy_n(first + static_cast<size_t>(count) * m_kv_dim,
                            static_cast<size_t>(m_size - start - count) * m_kv_dim, first);
            }
            continue;
        }
        // A ring's later positions land in other slots, some of them still to be read: through
        // a copy of what moves.
        const int from = std::max(start + count, layer.oldest);
        keys.clear();
        values.clear();
        for (int position = from; position < m_size; ++position) {
            const size_t at = offset(l, position);
            keys.insert(keys.end(), &m_keys[at], &m_keys[at] + m_kv_dim);
            values.insert(values.end(), &m_values[at], &m_values[at] + m_kv_dim);
        }
        for (int position = from; position < m_size; ++position) {
            const size_t read = static_cast<size_t>(position - from) * m_kv_dim;
            const size_t at = offset(l, position - count);
            std::copy_n(&keys[read], m_kv_dim, &m_keys[at]);
            std::copy_n(&values[read], m_kv_dim, &m_values[at]);
        }
        int oldest = layer.oldest >= start + count ? layer.oldest - count
                     : layer.oldest > start        ? start
                                                   : layer.oldest;
        layer.oldest = std::max(oldest, moved_end - layer.slot_count);
    }
    m_size = moved_end;
    m_checkpoints.clear();  // positions have moved
}

template class BasicKvCache<float>;
template class BasicKvCache<uint16_t>;

}  // namespace hearth
