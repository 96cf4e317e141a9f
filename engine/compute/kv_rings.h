// The bookkeeping of a KV cache whose sliding-window layers keep rings (kv_cache.h states the
// rule): per layer its window, slots and the first position it still holds; the cache's length;
// and which checkpoints exist, taken at which length, in which of kMaxCheckpoints storage places.
// It holds no entries: the host cache (BasicKvCache) and the device cache (the Vulkan backend's)
// keep their own and copy them where these functions say, so both go back by one rule.
#pragma once

#include <array>
#include <optional>
#include <vector>

namespace hearth {

inline constexpr int kRingAlignment = 256;

// Checkpoints a cache keeps at most.
inline constexpr int kMaxCheckpoints = 2;

// Slots a layer keeps: the whole capacity, or for a sliding window of `window` positions read
// by steps of up to `step` tokens, the ring of kv_cache.h when it is smaller.
int layer_slots(int window, int step, int capacity);

class KvRings final {
public:
    // Layer l attends to its last windows[l] positions (0: all of them), in steps of up to
    // `step` tokens. Throws std::invalid_argument for no layers or a capacity below one.
    KvRings(const std::vector<int>& windows, int step, int capacity);

    int layer_count() const { return static_cast<int>(m_layers.size()); }
    int capacity() const { return m_capacity; }
    int size() const { return m_size; }
    int window(int layer) const { return at(layer).window; }
    int slot_count(int layer) const { return at(layer).slot_count; }
    // The first position whose entries `layer` still holds.
    int oldest(int layer) const { return at(layer).oldest; }
    bool is_ring(int layer) const { return ring(at(layer)); }
    bool has_rings() const;
    int slot(int layer, int position) const { return position % at(layer).slot_count; }
    // Positions one step may write: past this, a ring would overwrite what the step's first
    // token reads.
    int largest_step() const { return m_largest_step; }

    // Positions [size, size + count) now hold entries.
    void commit(int count);
    // Positions before `end` were written past the length and then given up (a chain decode's
    // declined tokens): the slots they took no longer hold what they held.
    void overwrote(int end);
    // The longest prefix of at most `length` positions the cache can go back to.
    int keepable(int length) const;

    // A checkpoint to copy back: each ring's positions [saved - window, saved) below the new
    // length, from storage place `storage`.
    struct Restore {
        int saved;
        int storage;
    };
    // Forgets positions from `length` on; the caller copies back what the result names. Throws
    // std::out_of_range past the end, std::logic_error for a length that is not keepable.
    std::optional<Restore> truncate(int length);
    // Decides on a checkpoint at the current length: the storage place into which the caller
    // copies each ring's positions [size - window, size), or none when no copy is needed.
    std::optional<int> checkpoint();
    // Whether storage place `storage` holds a checkpoint still in use.
    bool stores(int storage) const;
    // Forgets positions [start, start + count) and moves the later ones down; the caller moves
    // the entries first, reading oldest() as it was.
    void erase(int start, int count);

private:
    struct Layer {
        int window;
        int slot_count;
        int oldest = 0;  // first position still held
    };
    struct Mark {
        int saved;    // the length it was taken at
        int size;     // the length it can still go back to (saved, or one less after a truncate)
        int storage;  // where its entries are
        bool serves(int length) const { return length >= saved - 1 && length <= size; }
    };

    const Layer& at(int layer) const { return m_layers[static_cast<size_t>(layer)]; }
    bool ring(const Layer& layer) const { return layer.slot_count < m_capacity; }
    bool holds_window_before(int length) const;

    int m_capacity;
    int m_size = 0;
    int m_largest_step;
    std::vector<Layer> m_layers;
    std::vector<Mark> m_marks;  // oldest first
};

}  // namespace hearth
