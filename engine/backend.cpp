#include "engine/backend.h"

#include <stdexcept>

namespace hearth {
namespace {

class ReferenceSequence final : public Sequence {
public:
    explicit ReferenceSequence(KvCache cache) : m_cache(std::move(cache)) {}
    int size() const override { return m_cache.size(); }
    int capacity() const override { return m_cache.capacity(); }
    void truncate(int length) override { m_cache.truncate(length); }
    KvCache& cache() { return m_cache; }

private:
    KvCache m_cache;
};

}  // namespace

std::unique_ptr<Sequence> ReferenceBackend::create_sequence(int capacity) {
    return std::make_unique<ReferenceSequence>(m_forward.make_cache(capacity));
}

std::vector<float> ReferenceBackend::forward(std::span<const int32_t> tokens, Sequence& sequence,
                                             LogitRows rows) {
    auto* own = dynamic_cast<ReferenceSequence*>(&sequence);
    if (own == nullptr) throw std::invalid_argument("the sequence belongs to another backend");
    return m_forward.forward(tokens, own->cache(), rows);
}

}  // namespace hearth
