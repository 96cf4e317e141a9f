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
};

std::string_view stop_reason_name(StopReason reason);

struct GenerationStats {
    int prompt_tokens = 0;
    int cached_tokens = 0;  // prompt tokens reused from the KV cache, not prefilled
    int64_t prefill_ns = 0;
    int64_t time_to_first_token_ns = 0;  // request start to the first generated token
    int generated_tokens = 0;
    int64_t decode_ns = 0;                // time spent on forward passes after the first token
    std::vector<int64_t> token_times_ns;  // when each generated token was ready, from the start
    StopReason stop_reason = StopReason::MaxTokens;

    int prefilled_tokens() const { return prompt_tokens - cached_tokens; }
    double prefill_tokens_per_second() const {
        return prefill_ns > 0 ? prefilled_tokens() * 1e9 / static_cast<double>(prefill_ns) : 0.0;
    }
    // Tokens produced by decode forward passes (the first comes from the prefill's logits).
    double decode_tokens_per_second() const {
        return decode_ns > 0 ? (generated_tokens - 1) * 1e9 / static_cast<double>(decode_ns) : 0.0;
    }
};

}  // namespace hearth
