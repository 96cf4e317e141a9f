// The loop at the heart of generation: runs the prefill in planner-sized steps, then produces
// tokens on one of four paths (greedy, sampled, speculative, JSON-constrained) and hands them to
// the consumer in chunks: a chunk goes out when it holds N tokens or when the hand-off interval
// has passed, whichever comes first, so streaming is smooth at 5 tok/s and cheap at 500. Every
// backend plugs in through Backend::decode, which lets a device run whole chunks per submission.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <span>

#include "engine/compute/backend.h"
#include "engine/generation/generation_request.h"
#include "engine/generation/reasoning_tally.h"
#include "engine/generation/speculation_governor.h"
#include "engine/generation/stop_strings.h"
#include "engine/generation/token_history.h"
#include "engine/grammar/json_constraint.h"
#include "engine/grammar/token_trie.h"
#include "engine/text/reasoning_splitter.h"
#include "engine/text/tokenizer.h"
#include "engine/text/utf8_buffer.h"

namespace hearth {

struct DecodeContext {
    Backend& backend;
    Sequence& sequence;
    const Tokenizer& tokenizer;
    TokenHistory& history;                  // the loop appends the tokens it feeds to the cache
    std::shared_ptr<const TokenTrie> trie;  // JSON mode only
    // Frees cache positions (dropping and shifting per the overflow policy) and returns how
    // many; 0 when the policy is to stop.
    std::function<int()> make_room;
};

class DecodeLoop final : private TokenPicker {
public:
    DecodeLoop(DecodeContext context, const GenerationRequest& request, const GenerationSink& sink);

    // Prefills `prefill` (the prompt tokens the cache lacks, at least one), then decodes.
    // `stats` arrives with the prompt counts filled in and leaves with everything else.
    GenerationResult run(std::span<const int32_t> prefill, GenerationStats stats);

private:
    using Clock = std::chrono::steady_clock;

    std::optional<std::vector<float>> prefill(std::span<const int32_t> tokens);
    void decode_plain(int32_t input);
    void decode_speculative(int32_t input);
    std::vector<int32_t> propose(std::span<const int32_t> lookup, int draft_length);
    int verify(int32_t input, std::span<const int32_t> drafts, std::vector<int32_t>& lookup);
    int32_t decode_until_draft(int32_t input, std::vector<int32_t>& lookup,
                               std::chrono::steady_clock::time_point started);
    bool draft_waiting(std::span<const int32_t> lookup) const;
    static double seconds_since(std::chrono::steady_clock::time_point start);
    bool ensure_room();

    // TokenPicker: the backend asks for each token and reports it back.
    int32_t pick(std::span<const float> logits) override;
    bool accept(int32_t token) override;
    std::optional<SamplerSettings> device_rule() const override;

    // Takes one generated token through stop checks, text assembly and hand-off; false ends
    // the generation.
    bool emit(int32_t token);
    std::string piece(int32_t token) const;  // the token's text as the splitter reads it
    void stop(StopReason reason);
    bool cancelled() const;
    bool hand_off(int64_t now_ns);  // false: the sink asked to stop
    void finish();
    int64_t elapsed_ns() const;

    DecodeContext m_context;
    const GenerationRequest& m_request;
    const GenerationSink& m_sink;
    Sampler m_sampler;
    std::optional<JsonConstraint> m_constraint;
    StopStrings m_stop_strings;
    Utf8Buffer m_utf8;
    ReasoningSplitter m_splitter;
    ReasoningTally m_tally;
    GenerationResult m_result;
    TokenChunk m_chunk;
    std::vector<int32_t> m_run;  // tokens accepted during the current Backend::decode call
    // Speculative decoding's plain chunks: the conversation so far, which accept() extends and
    // watches for a draft; null otherwise.
    std::vector<int32_t>* m_watched = nullptr;
    SpeculationGovernor m_governor;
    Clock::time_point m_start;
    int64_t m_last_handoff_ns = 0;
    bool m_stopped = false;
};

}  // namespace hearth
