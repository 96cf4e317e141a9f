// What the decode loop hands to its consumer at once: a few tokens, the text they complete,
// and when each was ready.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace hearth {

struct TokenChunk {
    std::vector<int32_t> tokens;
    std::string text;                     // valid UTF-8; may lag the tokens (held-back text)
    std::vector<int64_t> token_times_ns;  // per token, from the request's start
    // The model's reasoning in these tokens, kept out of `text` (the answer), and how many of
    // `tokens` were reasoning (markers included). See ReasoningSplitter.
    std::string reasoning;
    int reasoning_tokens = 0;

    bool empty() const { return tokens.empty() && text.empty() && reasoning.empty(); }
    void clear() {
        tokens.clear();
        text.clear();
        token_times_ns.clear();
        reasoning.clear();
        reasoning_tokens = 0;
    }
    // Appends `later` (the next chunk) to this one.
    void append(const TokenChunk& later) {
        tokens.insert(tokens.end(), later.tokens.begin(), later.tokens.end());
        text += later.text;
        reasoning += later.reasoning;
        reasoning_tokens += later.reasoning_tokens;
        token_times_ns.insert(token_times_ns.end(), later.token_times_ns.begin(),
                              later.token_times_ns.end());
    }
};

}  // namespace hearth
