// The meeting point of a producer (the decode loop) and a consumer on another thread (a
// renderer). Two buffers: the producer publishes a finished chunk into the ready slot and keeps
// going; the consumer swaps the ready chunk out whenever it gets to it. If the consumer is
// behind, a new chunk is appended to the one still waiting, so the producer never waits for the
// consumer and the consumer never sees a half-written chunk. Memory is reused both ways.
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>

#include "engine/generation/token_chunk.h"

namespace hearth {

class ChunkHandoff final {
public:
    // Producer: moves `chunk` into the ready slot (or onto its end) and leaves `chunk` empty.
    // Returns true when the slot was empty, i.e. the consumer should be told.
    bool publish(TokenChunk& chunk);
    // Producer: no more chunks will come.
    void close();

    // Consumer: swaps the ready chunk into `chunk` (emptying it first); waits up to `timeout`
    // for one. False when none came, and also once closed and drained.
    bool take(TokenChunk& chunk, std::chrono::milliseconds timeout = std::chrono::milliseconds(0));
    bool drained() const;

private:
    mutable std::mutex m_mutex;
    std::condition_variable m_ready_changed;
    TokenChunk m_ready;
    bool m_has_ready = false;
    bool m_closed = false;
};

}  // namespace hearth
