#include "engine/grammar/json_constraint.h"

#include <limits>

namespace hearth {
namespace {

// Tokens are chosen so the shortest completion always fits the remaining budget with this much
// to spare (at one byte per token at worst); within it, only the completion is pursued.
constexpr int kClosingSlack = 2;
constexpr int kUnlimited = -1;

}  // namespace

JsonConstraint::JsonConstraint(std::shared_ptr<const JsonGrammar> grammar,
                               std::shared_ptr<const TokenTrie> trie, const Tokenizer& tokenizer)
    : m_grammar(std::move(grammar)),
      m_trie(std::move(trie)),
      m_tokenizer(tokenizer),
      m_state(m_grammar->start()) {}

bool JsonConstraint::allows(int32_t token) const {
    return fits(token, kUnlimited);
}

// Valid, and leaving a completion short enough for the tokens that remain after this one.
bool JsonConstraint::fits(int32_t token, int tokens_left) const {
    if (token < 0 || token >= m_trie->vocab_size()) return false;
    if (m_tokenizer.is_end_of_generation(token)) return m_grammar->can_end(m_state);
    const auto bytes = m_trie->bytes(token);
    if (bytes.empty()) return false;
    auto state = m_state;
    return m_grammar->advance(state, bytes) && affordable(state, tokens_left);
}

bool JsonConstraint::affordable(const JsonGrammar::State& after, int tokens_left) const {
    return tokens_left == kUnlimited || m_grammar->distance(after) + kClosingSlack < tokens_left;
}

void JsonConstraint::accept(int32_t token) {
    if (m_tokenizer.is_end_of_generation(token)) return;
    if (!m_grammar->advance(m_state, m_trie->bytes(token))) {
        throw std::logic_error("JsonConstraint::accept: a token the grammar refuses");
    }
}

int32_t JsonConstraint::pick(std::span<const float> logits, Sampler& sampler, int tokens_left) {
    if (tokens_left <= distance() + kClosingSlack) return closing_pick(logits);
    const int32_t first = sampler.sample(logits);
    if (fits(first, tokens_left)) return first;

    const float refused = -std::numeric_limits<float>::infinity();
    m_masked.assign(logits.size(), refused);
    bool any = false;
    const auto advance = [this](JsonGrammar::State& state, uint8_t byte) {
        return m_grammar->advance(state, byte);
    };
    m_trie->walk(m_state, advance, [&](int32_t token, const JsonGrammar::State& after) {
        if (!affordable(after, tokens_left)) return;
        m_masked[static_cast<size_t>(token)] = logits[static_cast<size_t>(token)];
        any = true;
    });
    if (m_grammar->can_end(m_state)) {
        for (size_t token = 0; token < logits.size(); ++token) {
            if (m_tokenizer.is_end_of_generation(static_cast<int32_t>(token))) {
                m_masked[token] = logits[token];
                any = true;
            }
        }
    }
    return any ? sampler.sample(m_masked) : -1;
}

// The token that brings the document closest to complete; the model's preference breaks ties.
int32_t JsonConstraint::closing_pick(std::span<const float> logits) const {
    int32_t best = -1;
    int best_distance = std::numeric_limits<int>::max();
    const auto consider = [&](int32_t token, int after) {
        const float logit = logits[static_cast<size_t>(token)];
        if (after < best_distance ||
            (after == best_distance && logit > logits[static_cast<size_t>(best)])) {
            best = token;
            best_distance = after;
        }
    };
    const auto advance = [this](JsonGrammar::State& state, uint8_t byte) {
        return m_grammar->advance(state, byte);
    };
    m_trie->walk(m_state, advance, [&](int32_t token, const JsonGrammar::State& after) {
        consider(token, m_grammar->distance(after));
    });
    if (m_grammar->can_end(m_state)) {
        for (size_t token = 0; token < logits.size(); ++token) {
            if (m_tokenizer.is_end_of_generation(static_cast<int32_t>(token))) {
                consider(static_cast<int32_t>(token), 0);
            }
        }
    }
    return best;
}

}  // namespace hearth
