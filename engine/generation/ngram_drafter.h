// Draft tokens for speculative decoding without a second model: prompt lookup. The last few
// tokens of the conversation are searched for earlier in it, and what followed them then is
// proposed to follow now. Chat answers quote the prompt, code and names often enough that the
// drafts are accepted at a useful rate, and a wrong draft costs only batch rows.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace hearth {

struct DraftSettings {
    int max_tokens = 8;  // longest draft
    int max_ngram = 4;   // longest suffix looked up; shorter ones are tried after it
    int min_ngram = 2;
};

// Up to `settings.max_tokens` tokens that followed the most recent earlier occurrence of the
// longest matching suffix of `history`; empty when the suffix occurs nowhere else.
std::vector<int32_t> draft_by_lookup(std::span<const int32_t> history,
                                     const DraftSettings& settings);

}  // namespace hearth
