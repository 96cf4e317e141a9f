#include "tests/support/sliding_window_checks.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <span>

#include "engine/generation/session.h"
#include "tests/support/requests.h"

namespace hearth::test {
namespace {

GenerationResult run(Session& session, const GenerationRequest& request) {
    return session.generate(request, {});
}

}  // namespace

size_t expect_the_going_back_rule(Backend& backend, const Tokenizer& tokenizer,
                                  const ConversationShape& shape) {
    const auto cold = [&](const GenerationRequest& request) {
        Session session(backend, tokenizer, 1024);
        return run(session, request);
    };
    Session session(backend, tokenizer, 1024);
    auto request = greedy(salted_prompt(shape.prompt, 1), shape.answer);
    const auto first = run(session, request);
    EXPECT_EQ(first.tokens, cold(request).tokens);

    // A follow-up turn prefills only the answer's last token and the new message.
    auto next = request.prompt;
    next.insert(next.end(), first.tokens.begin(), first.tokens.end());
    const int turn_start = static_cast<int>(next.size()) - 1;
    const auto message = salted_prompt(shape.message, 7);
    next.insert(next.end(), message.begin() + 1, message.end());
    auto follow_up = greedy(next, shape.wrapping_answer);
    const auto second = run(session, follow_up);
    EXPECT_EQ(second.stats.cached_tokens, turn_start);
    EXPECT_EQ(second.stats.prefilled_tokens, shape.message);
    EXPECT_EQ(second.tokens, cold(follow_up).tokens);

    // Regenerate: the rings no longer hold the prompt's end, its checkpoint does; only the
    // prompt's last token runs again, and the answer starts as before.
    follow_up.max_tokens = shape.later_answers;
    const auto again = run(session, follow_up);
    EXPECT_EQ(again.stats.prefilled_tokens, 1);
    const size_t kept = std::min(second.tokens.size(), static_cast<size_t>(shape.later_answers));
    EXPECT_EQ(again.tokens, std::vector(second.tokens.begin(), second.tokens.begin() + kept));

    // Edit a token of the latest message, more than a window before its end: back to the turn's
    // start, and only the message runs again.
    auto edited = follow_up;
    const size_t fork = edited.prompt.size() - kWindow - 8;
    edited.prompt[fork] = edited.prompt[fork] == 40 ? 41 : 40;
    const auto third = run(session, edited);
    EXPECT_EQ(third.stats.cached_tokens, turn_start);
    EXPECT_EQ(third.stats.prefilled_tokens, static_cast<int>(edited.prompt.size()) - turn_start);
    EXPECT_EQ(third.tokens, cold(edited).tokens);

    // Edit the first prompt, long before any checkpoint: everything runs again.
    auto rewritten = edited;
    rewritten.prompt[5] = rewritten.prompt[5] == 40 ? 41 : 40;
    const auto fourth = run(session, rewritten);
    EXPECT_EQ(fourth.stats.cached_tokens, 0);
    EXPECT_EQ(fourth.tokens, cold(rewritten).tokens);
    return session.memory_bytes();
}

std::vector<float> logits_after_erase(Backend& backend, int length, int keep, int dropped) {
    const auto tokens = salted_prompt(length, 3);
    const auto more = salted_prompt(kWindow / 2, 9);
    auto sequence = backend.create_sequence(512);
    backend.forward(tokens, *sequence, LogitRows::None);
    sequence->erase(keep, dropped);
    EXPECT_EQ(sequence->size(), length - dropped);
    return backend.forward(std::span(more).subspan(1), *sequence, LogitRows::All);
}

float largest_difference(const std::vector<float>& a, const std::vector<float>& b) {
    EXPECT_EQ(a.size(), b.size());
    float worst = 0.0f;
    for (size_t i = 0; i < std::min(a.size(), b.size()); ++i) {
        worst = std::max(worst, std::fabs(a[i] - b[i]));
    }
    return worst;
}

}  // namespace hearth::test
