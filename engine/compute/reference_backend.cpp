#include "engine/compute/reference_backend.h"

#include "engine/compute/cache_sequence.h"

namespace hearth {

using ReferenceSequence = CacheSequence<float>;

std::unique_ptr<Sequence> ReferenceBackend::create_sequence(int capacity) {
    return std::make_unique<ReferenceSequence>(*this, m_model, m_forward.make_cache(capacity));
}

std::vector<float> ReferenceBackend::forward(std::span<const int32_t> tokens, Sequence& sequence,
                                             LogitRows rows) {
    return m_forward.forward(tokens, own_sequence<ReferenceSequence>(sequence, *this).cache(),
                             rows);
}

}  // namespace hearth
