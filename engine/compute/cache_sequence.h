// A sequence whose KV cache lives in host memory: the reference backend's (float) and the CPU
// backend's (IEEE half) differ only in the cache's element type.
#pragma once

#include "engine/compute/kv_cache.h"
#include "engine/compute/kv_shift.h"
#include "engine/compute/sequence.h"
#include "engine/model/rope.h"

namespace hearth {

template <typename Element>
class CacheSequence final : public Sequence {
public:
    // The rotations follow from the model and the context length (the cache's capacity).
    CacheSequence(const Backend& owner, const Model& model, BasicKvCache<Element> cache)
        : Sequence(owner),
          m_cache(std::move(cache)),
          m_ropes(model, m_cache.capacity()),
          m_head_dim(model.config().head_dim) {}

    int size() const override { return m_cache.size(); }
    int capacity() const override { return m_cache.capacity(); }
    int keepable(int length) const override { return m_cache.keepable(length); }
    void checkpoint() override { m_cache.checkpoint(); }
    void truncate(int length) override { m_cache.truncate(length); }
    void erase(int start, int count) override {
        erase_positions(m_cache, m_ropes, m_head_dim, start, count);
    }
    size_t memory_bytes() const override { return m_cache.bytes(); }
    BasicKvCache<Element>& cache() { return m_cache; }
    const LayerRopes& ropes() const { return m_ropes; }

private:
    BasicKvCache<Element> m_cache;
    LayerRopes m_ropes;
    int m_head_dim;
};

}  // namespace hearth
