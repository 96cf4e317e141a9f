// What one generation did and how fast, as raw numbers: formatting belongs to the UI.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace hearth {

// Values may be stored with a conversation's history: do not change or reuse.
enum class StopReason : int {
    EndOfGeneration = 0,  // the model produced an end-of-generation token
    MaxTokens = 1,
    Cancelled = 2,
    ContextFull = 3,
    StopString = 4,        // a user stop string appeared (it is not part of the text)
    DocumentComplete = 5,  // JSON mode: the document is whole and nothing may follow
    NoValidToken = 6,      // JSON mode: no token of the vocabulary can continue the document
};

std::string_view stop_reason_name(StopReason reason);

struct GenerationStats {
    int prompt_tokens = 0;
    int cached_tokens = 0;     // prompt tokens reused from the KV cache
    int prefilled_tokens = 0;  // prompt tokens run through the model for this request
    int64_t prefill_ns = 0;
    int64_t time_to_first_token_ns = 0;  // request start to the first generated token
    int generated_tokens = 0;
    int64_t decode_ns = 0;                // from the first generated token to the last
    std::vector<int64_t> token_times_ns;  // when each generated token was ready, from the start
    int draft_tokens = 0;                 // speculative: tokens proposed
    int accepted_draft_tokens = 0;        // speculative: proposed tokens that matched
    int dropped_tokens = 0;               // context overflow: tokens taken out of the cache
    StopReason stop_reason = StopReason::MaxTokens;
    int reasoning_tokens = 0;  // generated tokens that were reasoning, not answer
    // From the first reasoning token to the first answer token (to the last token when the
    // answer never began); 0 without reasoning.
    int64_t reasoning_ns = 0;

    double prefill_tokens_per_second() const {
        return prefill_ns > 0 ? prefilled_tokens * 1e9 / static_cast<double>(prefill_ns) : 0.0;
    }
    // Tokens produced by decode forward passes (the first comes from the prefill's logits).
    double decode_tokens_per_second() const {
        return decode_ns > 0 ? (generated_tokens - 1) * 1e9 / static_cast<double>(decode_ns) : 0.0;
    }
    double acceptance_rate() const {
        return draft_tokens > 0 ? accepted_draft_tokens / static_cast<double>(draft_tokens) : 0.0;
    }
};

}  // namespace hearth
