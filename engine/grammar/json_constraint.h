// JSON mode at the token level: which tokens may come next under a JsonGrammar, and the choice
// of the next token. The sampler draws from the model's distribution first and the full mask is
// computed only when its pick is refused; drawing again from the masked distribution then gives
// exactly the distribution restricted to valid tokens, at a fraction of the cost. When the
// token budget is about to run out, the constraint steers to the shortest completion instead,
// so the output is a whole document whenever the budget allows one at all.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "engine/generation/sampler.h"
#include "engine/grammar/json_grammar.h"
#include "engine/grammar/token_trie.h"
#include "engine/text/tokenizer.h"

namespace hearth {

class JsonConstraint final {
public:
    JsonConstraint(std::shared_ptr<const JsonGrammar> grammar,
                   std::shared_ptr<const TokenTrie> trie, const Tokenizer& tokenizer);

    // The next token, or -1 when no token can continue the document. `tokens_left` counts
    // this one.
    int32_t pick(std::span<const float> logits, Sampler& sampler, int tokens_left);
    bool allows(int32_t token) const;
    void accept(int32_t token);

    bool finished() const { return m_grammar->finished(m_state); }
    int distance() const { return m_grammar->distance(m_state); }

private:
    int32_t closing_pick(std::span<const float> logits) const;
    bool fits(int32_t token, int tokens_left) const;
    bool affordable(const JsonGrammar::State& after, int tokens_left) const;

    std::shared_ptr<const JsonGrammar> m_grammar;
    std::shared_ptr<const TokenTrie> m_trie;
    const Tokenizer& m_tokenizer;
    JsonGrammar::State m_state;
    std::vector<float> m_masked;  // scratch
};

}  // namespace hearth
