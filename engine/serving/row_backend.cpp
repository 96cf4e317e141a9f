#include "engine/serving/row_backend.h"

#include <algorithm>

namespace hearth {

RowBackend::RowBackend(Backend& backend, StepBatcher& batcher, int step_tokens)
    : m_backend(backend), m_batcher(batcher) {
    for (const int size : backend.chunk_sizes()) {
        if (size <= step_tokens) m_chunk_sizes.push_back(size);
    }
    if (m_chunk_sizes.empty()) m_chunk_sizes.push_back(1);
}

}  // namespace hearth
