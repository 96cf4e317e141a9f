#include "engine/compute/backend.h"

#include <stdexcept>

#include "engine/compute/kv_shift.h"

namespace hearth {
namespace {

class ReferenceSequence final : public Sequence {
public:
    ReferenceSequence(KvCache cache, const Rope& rope, int head_dim)
        : m_cache(std::move(cache)), m_rope(rope), m_head_dim(head_dim) {}
    int size() const override { return m_cache.size(); }
    int capacity() const override { return m_cache.capacity(); }
    void truncate(int length) override { m_cache.truncate(length); }
    void erase(int start, int count) override {
        erase_positions(m_cache, m_rope, m_head_dim, start, count);
    }
    KvCache& cache() { return m_cache; }

private:
    KvCache m_cache;
    const Rope& m_rope;
    int m_head_dim;
};

}  // namespace

int Backend::decode(Sequence& sequence, int32_t input, int count, TokenPicker& picker) {
    int accepted = 0;
    while (accepted < count) {
        const auto logits = forward(std::span(&input, 1), sequence, LogitRows::Last);
        input = picker.pick(logits);
        ++accepted;
        if (!picker.accept(input)) break;
    }
    return accepted;
}

std::unique_ptr<Sequence> ReferenceBackend::create_sequence(int capacity) {
    return std::make_unique<ReferenceSequence>(m_forward.make_cache(capacity), m_rope,
                                               m_model.config().head_dim);
}

std::vector<float> ReferenceBackend::forward(std::span<const int32_t> tokens, Sequence& sequence,
                                             LogitRows rows) {
    auto* own = dynamic_cast<ReferenceSequence*>(&sequence);
    if (own == nullptr) throw std::invalid_argument("the sequence belongs to another backend");
    return m_forward.forward(tokens, own->cache(), rows);
}

}  // namespace hearth
