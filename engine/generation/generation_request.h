// What one generation is asked to do, what it reports back while it runs, and what it returns.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "engine/generation/drafter.h"
#include "engine/generation/generation_stats.h"
#include "engine/generation/notice.h"
#include "engine/generation/sampler.h"
#include "engine/generation/token_chunk.h"
#include "engine/grammar/json_grammar.h"
#include "engine/text/reasoning_splitter.h"

namespace hearth {

// What happens when the conversation no longer fits the context.
enum class OverflowPolicy : int {
    Stop = 0,           // refuse the prompt / end the answer, saying why
    RollingWindow = 1,  // keep the first keep_tokens, drop the oldest turns after them
    TruncateMiddle =
        2,  // keep the first keep_tokens and the first turn after them, drop the middle
};

struct HandoffSettings {
    int chunk_tokens = 8;                    // hand over when a chunk holds this many tokens
    std::chrono::milliseconds interval{30};  // or when this long has passed since the last
};

struct GenerationRequest {
    std::vector<int32_t> prompt;   // the whole conversation so far, as tokens
    std::vector<int> turn_starts;  // where each message begins in `prompt`, if known
    int keep_tokens = 0;           // leading tokens overflow never drops (the system prompt)
    OverflowPolicy overflow = OverflowPolicy::Stop;
    int max_tokens = 256;
    SamplerSettings sampler;
    std::vector<std::string> stop_strings;
    bool speculative = false;  // greedy requests only; others ignore it
    int draft_tokens = 8;
    // Where speculative drafts come from; none: looked up in the conversation itself.
    std::shared_ptr<Drafter> drafter;
    std::shared_ptr<const JsonGrammar> grammar;  // JSON mode when set
    HandoffSettings handoff;
    // How the model marks reasoning after this prompt: the loop hands reasoning over apart
    // from the answer. None for raw text prompts.
    ReasoningFormat reasoning;
    const std::atomic<bool>* cancel = nullptr;  // checked before every forward step
    // Facts about how the prompt was built (a chat template that fell back to its family's
    // built-in format), passed on at the front of the result's notices.
    Notices notices;
};

struct GenerationSink {
    // Called on the generating thread at every hand-off; false cancels. It must not block for
    // long: pass the chunk to the thread that renders it (a queued signal, say) and return.
    std::function<bool(const TokenChunk&)> on_chunk;
    // Called after each prefill step with the prompt tokens processed so far; false cancels.
    std::function<bool(int done, int total)> on_prefill;
    // Called once the prompt is laid out, before any of it is read: the figures known by then
    // (prompt_tokens, cached_tokens, prefilled_tokens, dropped_tokens), so that a front end
    // can show how full the context is while the answer streams.
    std::function<void(const GenerationStats& prompt)> on_prompt;
};

struct GenerationResult {
    GenerationStats stats;
    std::vector<int32_t> tokens;  // generated, without an end-of-generation token
    std::string text;             // the answer: everything the chunks' text carried, joined
    std::string reasoning;        // the chunks' reasoning, joined
    Notices notices;              // what overflow dropped, why it stopped early, a GPU lost
};

}  // namespace hearth
