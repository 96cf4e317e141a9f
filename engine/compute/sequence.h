// One sequence's state inside a backend: its KV cache, in the backend's own layout.
#pragma once

#include <cstddef>
#include <stdexcept>

namespace hearth {

class Backend;

class Sequence {
public:
    explicit Sequence(const Backend& owner) : m_owner(&owner) {}
    virtual ~Sequence() = default;
    Sequence(const Sequence&) = delete;
    Sequence& operator=(const Sequence&) = delete;

    virtual int size() const = 0;      // tokens cached
    virtual int capacity() const = 0;  // the context length
    // The longest prefix of at most `length` tokens truncate() can keep: `length`, unless
    // sliding-window layers keep only their recent positions (kv_cache.h states the rule); the
    // caller then runs the tokens from there to `length` again.
    virtual int keepable(int length) const { return length; }
    // Where a conversation may come back to (a prompt's start and end): sequences with
    // sliding-window rings remember those rings' windows here.
    virtual void checkpoint() {}
    virtual void truncate(int length) = 0;
    // Forgets positions [start, start + count) and moves the later ones down, re-rotating their
    // cached keys for their new positions: the context-overflow window without a new prefill.
    virtual void erase(int start, int count) = 0;
    // Memory the sequence holds (its KV cache at full capacity), for budgets over many sequences.
    virtual size_t memory_bytes() const = 0;

    const Backend* owner() const { return m_owner; }

private:
    const Backend* m_owner;
};

// The backend's own sequence type behind the interface: a sequence handed to another backend
// (a stale one after a device fallback, say) is refused instead of misread.
template <typename Own>
Own& own_sequence(Sequence& sequence, const Backend& backend) {
    if (sequence.owner() != &backend)
        throw std::invalid_argument("the sequence belongs to another backend");
    return static_cast<Own&>(sequence);
}

}  // namespace hearth
