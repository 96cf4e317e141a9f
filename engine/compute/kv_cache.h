// Keys and values of one sequence, per layer and position, laid out (layer, slot, kv_dim).
// The cache is the one place where KV state changes: append through the forward pass,
// shrink through truncate(). The element type is the backend's choice: float for the
// reference pass, f16 bits or Q8_0 blocks (32 values each, along the heads) for the CPU backend.
//
// A sliding-window layer only ever reads its last `window` positions, so it keeps a ring of
// slots rather than the whole context: the window before a step's first token plus the step's
// own tokens, rounded up to whole rings of kRingAlignment slots (so a block of positions read
// together never wraps). Gemma 3 1B at 32k then keeps about a fifth of a full cache.
//
// Going back (truncate) must find the window before the new end still in each ring. It is
// there after a short step back; for a longer one the cache keeps checkpoints (the window of
// each ring at a chosen length) and goes back to the latest usable one, and the caller runs the
// tokens from there again. The rule, for a ring of R slots and a window of W:
// - keepable(L) = L when every ring still holds positions [L - W + 1, L), which is true when no
//   position at or past L + R - W + 1 was written since those were;
// - else the latest checkpoint S with S - 1 <= L gives min(S, L) (a checkpoint holds the W
//   positions before S, enough to go on from S or S - 1);
// - else 0: everything runs again.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "engine/compute/kv_rings.h"
#include "kernels/quant_blocks.h"

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

// The most a cache of these layers can hold, checkpoints included, at `bytes_per_position` per
// layer and position (keys and values together): what memory estimates count.
size_t kv_cache_bytes(const std::vector<int>& windows, int step, int capacity,
                      size_t bytes_per_position);

// Values one cache element holds: one for float and f16, a block's for Q8_0.
template <typename Element>
inline constexpr int kValuesPerElement = 1;
template <>
inline constexpr int kValuesPerElement<kernels::BlockQ8_0> = kernels::kBlock32;

// `count` values into a cache row's elements and back (count a whole number of elements): the
// forward pass writes new keys and values through these, and the context shift re-rotates keys
// through both (a Q8_0 head is dequantised, rotated and quantised again).
void write_values(const float* values, float* out, size_t count);
void write_values(const float* values, uint16_t* out, size_t count);
void write_values(const float* values, kernels::BlockQ8_0* out, size_t count);
void read_values(const float* elements, float* out, size_t count);
void read_values(const uint16_t* elements, float* out, size_t count);
void read_values(const kernels::BlockQ8_0* elements, float* out, size_t count);

template <typename Element>
class BasicKvCache final {
public:
    // Every layer keeps every position.
    BasicKvCache(int layer_count, int capacity, int kv_dim);
    // Layer l attends to its last windows[l] positions (0: all of them), in steps of up to
    // `step` tokens.
    BasicKvCache(const std::vector<int>& windows, int step, int capacity, int kv_dim);
    // Zeroed entries under `rings`' bookkeeping, to be filled with another cache's slots (a
    // device's) and erased: the checkpoints' entries are not there, and erase forgets them.
    BasicKvCache(const KvRings& rings, int kv_dim);

    int layer_count() const { return m_rings.layer_count(); }
    int capacity() const { return m_rings.capacity(); }
    int size() const { return m_rings.size(); }
    int kv_dim() const { return m_kv_dim; }
    // Elements of one position's keys (or values): kv_dim / kValuesPerElement.
    int row_size() const { return m_row_size; }
    const KvRings& rings() const { return m_rings; }

    int slot_count(int layer) const { return m_rings.slot_count(layer); }
    // The first position whose entries `layer` still holds.
    int oldest(int layer) const { return m_rings.oldest(layer); }
    // What the cache holds: its slots, and its checkpoints (a few windows of each ring).
    size_t bytes() const;

    Element* key(int layer, int position) { return &m_keys[offset(layer, position)]; }
    Element* value(int layer, int position) { return &m_values[offset(layer, position)]; }
    const Element* key(int layer, int position) const { return &m_keys[offset(layer, position)]; }
    const Element* value(int layer, int position) const {
        return &m_values[offset(layer, position)];
    }

    // Asks the CPU to fetch, for writing, `layer`'s key and value rows of positions
    // [position, position + count): a hint, for a step to give ahead of its writes, since the
    // cache's memory was last touched when it was zeroed and a write that found it only there
    // waited on memory (a SmolLM row's 12 lines took 1.3 µs).
    void prefetch_for_write(int layer, int position, int count) const;

    // Makes room for `count` more positions; throws ContextFullError when they do not fit.
    void reserve_positions(int count) const;
    // Positions one step may write: past this, a ring would overwrite what the step's first
    // token reads.
    int largest_step() const { return m_rings.largest_step(); }
    void commit(int count) { m_rings.commit(count); }
    // The longest prefix of at most `length` positions the cache can go back to (the rule above).
    int keepable(int length) const { return m_rings.keepable(length); }
    // Forgets every position from `length` on, e.g. to fork a conversation; `length` must be
    // keepable(length).
    void truncate(int length);
    // Remembers the rings' windows at the current length (no-op without rings); keeps the two
    // latest.
    void checkpoint();
    // Forgets positions [start, start + count) and moves the later ones down (keys as they
    // were: re-rotating them for their new positions is the caller's part, from oldest() on).
    void erase(int start, int count);

private:
    // One checkpoint's entries: each ring's window, layer after layer.
    struct Stored {
        std::vector<Element> keys, values;
    };

    size_t offset(int layer, int position) const {
        return m_offsets[static_cast<size_t>(layer)] +
               static_cast<size_t>(m_rings.slot(layer, position)) * m_row_size;
    }
    void restore(const KvRings::Restore& restore);
    void release_unused();  // checkpoints the bookkeeping no longer keeps

    KvRings m_rings;
    int m_kv_dim;
    int m_row_size;
    std::vector<size_t> m_offsets;  // per layer: of its first slot
    std::vector<Element> m_keys;    // (layer, slot, kv_dim)
    std::vector<Element> m_values;  // (layer, slot, kv_dim)
    std::array<Stored, kMaxCheckpoints> m_stored;
};

using KvCache = BasicKvCache<float>;
using KvCacheF16 = BasicKvCache<uint16_t>;  // IEEE half bits
using KvCacheQ8_0 = BasicKvCache<kernels::BlockQ8_0>;

extern template class BasicKvCache<float>;
extern template class BasicKvCache<uint16_t>;
extern template class BasicKvCache<kernels::BlockQ8_0>;

}  // namespace hearth
