// One conversation's KV cache and token history. Each request carries the whole conversation;
// the session prefills only what follows the longest prefix it already holds (a regenerated or
// edited message forks the cache there), applies the overflow policy when the conversation
// outgrows the context, and runs the decode loop.
#pragma once

#include <memory>
#include <string>

#include "engine/compute/backend.h"
#include "engine/generation/generation_request.h"
#include "engine/generation/token_history.h"
#include "engine/grammar/token_trie.h"
#include "engine/text/tokenizer.h"

namespace hearth {

class Session final {
public:
    // `context_length` 0 means the model's trained context length. The backend and tokenizer
    // must outlive the session.
    Session(Backend& backend, const Tokenizer& tokenizer, int context_length);

    // Throws ContextFullError, having changed nothing, when the prompt cannot fit under the
    // request's overflow policy, and std::invalid_argument for a malformed request.
    GenerationResult generate(const GenerationRequest& request, const GenerationSink& sink = {});

    int context_length() const { return m_sequence->capacity(); }
    int cached_tokens() const { return m_sequence->size(); }
    size_t memory_bytes() const { return m_sequence->memory_bytes(); }
    const TokenHistory& history() const { return m_history; }
    void clear();

private:
    struct Overflow {
        int keep = 0;                  // cache positions never dropped
        std::vector<int> turn_starts;  // cache positions where messages begin
    };
    // Where the kept start and the turn boundaries fall in the cache, for a prompt whose first
    // `shared` tokens are in the history.
    Overflow overflow_frame(const GenerationRequest& request, int shared) const;
    // Frees cache positions mid-answer per the policy; returns how many (0: stop).
    int make_room(const GenerationRequest& request);
    std::vector<int32_t> fit_prompt(const GenerationRequest& request, int shared,
                                    GenerationStats& stats, Notices& notices);
    const std::shared_ptr<const TokenTrie>& trie();

    Backend& m_backend;
    const Tokenizer& m_tokenizer;
    std::unique_ptr<Sequence> m_sequence;
    TokenHistory m_history;
    std::shared_ptr<const TokenTrie> m_trie;  // built on the first JSON-mode request
};

}  // namespace hearth
