#include "engine/serving/row_backend.h"

#include <algorithm>

namespace hearth {
namespace {

class RowSequence final : public Sequence {
public:
    RowSequence(const Backend& owner, std::unique_ptr<Sequence> inner, StepBatcher& batcher)
        : Sequence(owner), m_inner(std::move(inner)), m_batcher(batcher) {}

    int size() const override { return m_inner->size(); }
    int capacity() const override { return m_inner->capacity(); }
    int keepable(int length) const override { return m_inner->keepable(length); }
    void checkpoint() override {
        const auto lock = m_batcher.between_steps();
        m_inner->checkpoint();
    }
    void truncate(int length) override {
        const auto lock = m_batcher.between_steps();
        m_inner->truncate(length);
    }
    void erase(int start, int count) override {
        const auto lock = m_batcher.between_steps();
        m_inner->erase(start, count);
    }
    size_t memory_bytes() const override { return m_inner->memory_bytes(); }
    Sequence& inner() { return *m_inner; }

private:
    std::unique_ptr<Sequence> m_inner;
    StepBatcher& m_batcher;
};

}  // namespace

RowBackend::RowBackend(Backend& backend, StepBatcher& batcher, int step_tokens)
    : m_backend(backend), m_batcher(batcher) {
    for (const int size : backend.chunk_sizes()) {
        if (size <= step_tokens) m_chunk_sizes.push_back(size);
    }
    if (m_chunk_sizes.empty()) m_chunk_sizes.push_back(1);
}

std::unique_ptr<Sequence> RowBackend::create_sequence(int capacity) {
    return std::make_unique<RowSequence>(*this, m_backend.create_sequence(capacity), m_batcher);
}

std::vector<float> RowBackend::forward(std::span<const int32_t> tokens, Sequence& sequence,
                                       LogitRows rows) {
    return m_batcher.forward(tokens, own_sequence<RowSequence>(sequence, *this).inner(), rows);
}

}  // namespace hearth
