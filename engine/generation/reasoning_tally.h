// Attributes each generated token to the reasoning or the answer, as the splitter reads its
// text, and times the reasoning: from its first token to the answer's first. Tokens read while
// the splitter is still deciding (a marker split over several tokens) go with what follows.
#pragma once

#include <cstdint>
#include <optional>

#include "engine/generation/generation_stats.h"
#include "engine/generation/token_chunk.h"
#include "engine/text/reasoning_splitter.h"

namespace hearth {

class ReasoningTally final {
public:
    // One token whose text `splitter` has just read, ready at `time_ns`; `was_reasoning`: the
    // splitter was inside reasoning before it (the token that closes reasoning belongs to it).
    void count(int64_t time_ns, bool was_reasoning, const ReasoningSplitter& splitter,
               TokenChunk& chunk, GenerationStats& stats);
    // The generation ended: reasoning that never reached an answer lasted until its last token.
    void finish(GenerationStats& stats) const;

private:
    int m_undecided = 0;
    int64_t m_undecided_since_ns = 0;
    std::optional<int64_t> m_start_ns;  // the first reasoning token
    int64_t m_last_reasoning_ns = 0;
    bool m_answer_began = false;
};

}  // namespace hearth
