#include "engine/generation/reasoning_tally.h"

#include <utility>

namespace hearth {

void ReasoningTally::count(int64_t time_ns, bool was_reasoning, const ReasoningSplitter& splitter,
                           TokenChunk& chunk, GenerationStats& stats) {
    if (!was_reasoning && splitter.deciding()) {
        if (m_undecided++ == 0) m_undecided_since_ns = time_ns;
        return;
    }
    const int tokens = 1 + std::exchange(m_undecided, 0);
    const int64_t first_ns = tokens > 1 ? m_undecided_since_ns : time_ns;
    if (was_reasoning || splitter.in_reasoning()) {
        if (!m_start_ns) m_start_ns = first_ns;
        m_last_reasoning_ns = time_ns;
        stats.reasoning_tokens += tokens;
        chunk.reasoning_tokens += tokens;
    } else if (m_start_ns && !m_answer_began) {
        m_answer_began = true;
        stats.reasoning_ns = first_ns - *m_start_ns;
    }
}

void ReasoningTally::finish(GenerationStats& stats) const {
    if (m_start_ns && !m_answer_began) stats.reasoning_ns = m_last_reasoning_ns - *m_start_ns;
}

}  // namespace hearth
