#include "app/core/continued_answer.h"

namespace hearth::core {

bool can_continue(const Message& message) {
    return message.role == QLatin1String("assistant") && message.finished && message.generation &&
           message.generation->stats.stop_reason == StopReason::MaxTokens;
}

GenerationStats continued_stats(const GenerationStats& before, const GenerationStats& after) {
    GenerationStats stats = after;
    stats.generated_tokens += before.generated_tokens;
    stats.decode_ns += before.decode_ns;
    stats.draft_tokens += before.draft_tokens;
    stats.accepted_draft_tokens += before.accepted_draft_tokens;
    stats.dropped_tokens += before.dropped_tokens;
    // An answer cut off while reasoning goes on reasoning: both parts' reasoning counts.
    stats.reasoning_tokens += before.reasoning_tokens;
    stats.reasoning_ns += before.reasoning_ns;
    // One time line: the continuation's times follow the first part's last token, so the gaps
    // between tokens (the latency histogram) stay true; the wait between the two requests is
    // not the engine's and is left out.
    const int64_t offset = before.token_times_ns.empty() ? 0 : before.token_times_ns.back();
    stats.token_times_ns = before.token_times_ns;
    for (const int64_t time : after.token_times_ns) stats.token_times_ns.push_back(offset + time);
    return stats;
}

}  // namespace hearth::core
