// Continue on an answer the token limit cut off: which answers offer it, and the figures of the
// answer once it has grown.
#include "app/core/continued_answer.h"

#include <gtest/gtest.h>

namespace hearth::core {
namespace {

Message answer(StopReason reason, bool finished = true) {
    Message message{.id = 2, .parent = 1, .role = "assistant", .text = "Once upon a"};
    message.finished = finished;
    message.generation = GenerationRecord{};
    message.generation->stats.stop_reason = reason;
    return message;
}

TEST(ContinuedAnswer, OnlyAnAnswerTheTokenLimitCutOffCanBeContinued) {
    EXPECT_TRUE(can_continue(answer(StopReason::MaxTokens)));
    for (const StopReason reason :
         {StopReason::EndOfGeneration, StopReason::Cancelled, StopReason::ContextFull,
          StopReason::StopString, StopReason::DocumentComplete, StopReason::NoValidToken}) {
        EXPECT_FALSE(can_continue(answer(reason))) << static_cast<int>(reason);
    }
    // Still streaming (or broken off by an error), unmeasured (imported), or a question.
    EXPECT_FALSE(can_continue(answer(StopReason::MaxTokens, false)));
    Message imported = answer(StopReason::MaxTokens);
    imported.generation.reset();
    EXPECT_FALSE(can_continue(imported));
    Message question = answer(StopReason::MaxTokens);
    question.role = "user";
    EXPECT_FALSE(can_continue(question));
}

// Tokens and decode time add up, the token times make one time line, and the rest is the
// continuation's: its prompt, its cache reuse, its first token and why it stopped.
TEST(ContinuedAnswer, TheFiguresCountBothPartsOfTheAnswer) {
    GenerationStats before;
    before.prompt_tokens = 5;
    before.generated_tokens = 3;
    before.decode_ns = 200;
    before.token_times_ns = {100, 200, 300};
    before.time_to_first_token_ns = 100;
    before.stop_reason = StopReason::MaxTokens;
    before.reasoning_tokens = 3;  // cut off while it reasoned
    before.reasoning_ns = 200;
    GenerationStats after;
    after.prompt_tokens = 8;
    after.cached_tokens = 7;
    after.prefilled_tokens = 1;
    after.generated_tokens = 2;
    after.decode_ns = 50;
    after.token_times_ns = {40, 90};
    after.time_to_first_token_ns = 40;
    after.stop_reason = StopReason::EndOfGeneration;
    after.reasoning_tokens = 1;
    after.reasoning_ns = 40;
    const GenerationStats stats = continued_stats(before, after);
    EXPECT_EQ(stats.generated_tokens, 5);
    EXPECT_EQ(stats.decode_ns, 250);
    EXPECT_EQ(stats.token_times_ns, (std::vector<int64_t>{100, 200, 300, 340, 390}));
    EXPECT_EQ(stats.prompt_tokens, 8);
    EXPECT_EQ(stats.cached_tokens, 7);
    EXPECT_EQ(stats.prefilled_tokens, 1);
    EXPECT_EQ(stats.time_to_first_token_ns, 40);
    EXPECT_EQ(stats.stop_reason, StopReason::EndOfGeneration);
    EXPECT_EQ(stats.reasoning_tokens, 4);
    EXPECT_EQ(stats.reasoning_ns, 240);
}

}  // namespace
}  // namespace hearth::core
