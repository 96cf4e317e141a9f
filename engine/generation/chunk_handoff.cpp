#include "engine/generation/chunk_handoff.h"

#include <utility>

namespace hearth {

bool ChunkHandoff::publish(TokenChunk& chunk) {
    bool was_empty;
    {
        std::lock_guard lock(m_mutex);
        was_empty = !m_has_ready;
        if (was_empty) {
            std::swap(m_ready, chunk);
        } else {
            m_ready.append(chunk);
        }
        m_has_ready = true;
    }
    chunk.clear();  // keeps the capacity of whichever buffer the producer now holds
    m_ready_changed.notify_one();
    return was_empty;
}

void ChunkHandoff::close() {
    {
        std::lock_guard lock(m_mutex);
        m_closed = true;
    }
    m_ready_changed.notify_all();
}

bool ChunkHandoff::take(TokenChunk& chunk, std::chrono::milliseconds timeout) {
    chunk.clear();
    std::unique_lock lock(m_mutex);
    m_ready_changed.wait_for(lock, timeout, [this] { return m_has_ready || m_closed; });
    if (!m_has_ready) return false;
    std::swap(m_ready, chunk);
    m_has_ready = false;
    return true;
}

bool ChunkHandoff::drained() const {
    std::lock_guard lock(m_mutex);
    return m_closed && !m_has_ready;
}

}  // namespace hearth
