#include "engine/compute/kv_rings.h"

#include <algorithm>
#include <cstdint>
#include <stdexcept>

namespace hearth {

int layer_slots(int window, int step, int capacity) {
    if (window <= 0) return capacity;
    // The window before a step's first token (window - 1 positions) and the step itself.
    const int64_t needed = int64_t{window} + std::max(step, 1) - 1;
    const int64_t ring = (needed + kRingAlignment - 1) / kRingAlignment * kRingAlignment;
    return ring < capacity ? static_cast<int>(ring) : capacity;
}

KvRings::KvRings(const std::vector<int>& windows, int step, int capacity)
    : m_capacity(capacity), m_largest_step(capacity) {
    if (windows.empty() || capacity <= 0) {
        throw std::invalid_argument("a KV cache needs positive layer count and capacity");
    }
    for (const int window : windows) {
        const Layer layer{window, layer_slots(window, step, capacity)};
        if (ring(layer)) m_largest_step = std::min(m_largest_step, layer.slot_count - window + 1);
        m_layers.push_back(layer);
    }
}

bool KvRings::has_rings() const {
    return std::any_of(m_layers.begin(), m_layers.end(),
                       [&](const Layer& layer) { return ring(layer); });
}

void KvRings::commit(int count) {
    m_size += count;
    overwrote(m_size);
}

void KvRings::overwrote(int end) {
    for (Layer& layer : m_layers) {
        if (ring(layer)) layer.oldest = std::max(layer.oldest, end - layer.slot_count);
    }
}

bool KvRings::holds_window_before(int length) const {
    return length == 0 || std::all_of(m_layers.begin(), m_layers.end(), [&](const Layer& layer) {
               return !ring(layer) || layer.oldest <= std::max(0, length - layer.window + 1);
           });
}

int KvRings::keepable(int length) const {
    length = std::clamp(length, 0, m_size);
    if (holds_window_before(length)) return length;
    int best = 0;
    for (const Mark& mark : m_marks) {
        const int kept = std::min(mark.size, length);
        if (mark.serves(kept)) best = std::max(best, kept);
    }
    return best;
}

std::optional<KvRings::Restore> KvRings::truncate(int length) {
    if (length < 0 || length > m_size) throw std::out_of_range("KvCache::truncate past its end");
    std::optional<Restore> restore;
    if (!holds_window_before(length)) {
        const auto usable = std::find_if(m_marks.rbegin(), m_marks.rend(),
                                         [&](const Mark& mark) { return mark.serves(length); });
        if (usable == m_marks.rend()) {
            throw std::logic_error("KvCache::truncate to a length its rings no longer hold");
        }
        restore = Restore{usable->saved, usable->storage};
        // The checkpoint's positions below the new length are what each ring then holds.
        for (Layer& layer : m_layers) {
            if (ring(layer)) layer.oldest = std::max(0, usable->saved - layer.window);
        }
    }
    m_size = length;
    if (length == 0) {
        for (Layer& layer : m_layers) layer.oldest = 0;  // every slot is free again
    }
    // Checkpoints past the new end hold positions that may now be written differently.
    std::erase_if(m_marks, [&](const Mark& mark) { return mark.saved - 1 > length; });
    for (Mark& mark : m_marks) mark.size = std::min(mark.size, length);
    return restore;
}

std::optional<int> KvRings::checkpoint() {
    if (!has_rings() || m_size == 0) return std::nullopt;
    // One that can already come back here is enough (a regenerate's fork, one before the last
    // checkpoint): a second would only push out an older one.
    if (std::any_of(m_marks.begin(), m_marks.end(),
                    [&](const Mark& old) { return old.serves(m_size); })) {
        return std::nullopt;
    }
    // One taken at this length before a truncate may hold entries since rewritten.
    std::erase_if(m_marks, [&](const Mark& old) { return old.saved == m_size; });
    if (m_marks.size() == kMaxCheckpoints) m_marks.erase(m_marks.begin());
    int storage = 0;
    while (stores(storage)) ++storage;
    m_marks.push_back({m_size, m_size, storage});
    return storage;
}

bool KvRings::stores(int storage) const {
    return std::any_of(m_marks.begin(), m_marks.end(),
                       [&](const Mark& mark) { return mark.storage == storage; });
}

void KvRings::erase(int start, int count) {
    if (start < 0 || count < 0 || start + count > m_size) {
        throw std::out_of_range("KvCache::erase past its end");
    }
    const int moved_end = m_size - count;
    for (Layer& layer : m_layers) {
        if (!ring(layer)) continue;
        const int oldest = layer.oldest >= start + count ? layer.oldest - count
                           : layer.oldest > start        ? start
                                                         : layer.oldest;
        layer.oldest = std::max(oldest, moved_end - layer.slot_count);
    }
    m_size = moved_end;
    m_marks.clear();  // positions have moved
}

}  // namespace hearth
