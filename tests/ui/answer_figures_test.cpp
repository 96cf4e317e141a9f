// An answer's figures in words, and the streaming answer's progress from the engine's figures.
#include "ui/answer_figures.h"

#include <gtest/gtest.h>

#include <set>

namespace hearth::ui {
namespace {

TokenChunk chunk(std::vector<int64_t> times) {
    TokenChunk piece;
    piece.token_times_ns = std::move(times);
    piece.tokens.assign(piece.token_times_ns.size(), 7);
    return piece;
}

// The context holds the prompt the cache kept and every token since; after a GPU lost
// mid-answer the new prompt holds the tokens streamed so far, which are not counted twice.
TEST(AnswerFigures, ProgressCountsThePromptKeptAndTheTokensSince) {
    AnswerProgress progress;
    GenerationStats prompt;
    prompt.prompt_tokens = 120;
    prompt.dropped_tokens = 20;
    progress.prompt_laid_out(prompt);
    EXPECT_EQ(progress.context_used(), 100);
    progress.add(chunk({50'000'000, 60'000'000}));
    progress.add(chunk({70'000'000, 80'000'000}));
    EXPECT_EQ(progress.tokens(), 4);
    EXPECT_EQ(progress.context_used(), 104);
    // 3 tokens after the first in 30 ms.
    EXPECT_EQ(progress.status_text().toStdString(),
              "Writing the answer: 4 tokens · 100.0 tok/s · first token in 50 ms");
    prompt.prompt_tokens = 104;  // resumed elsewhere: the answer so far is read again
    prompt.dropped_tokens = 0;
    progress.prompt_laid_out(prompt);
    progress.add(chunk({90'000'000}));
    EXPECT_EQ(progress.context_used(), 105);
    EXPECT_EQ(progress.tokens(), 5);
}

TEST(AnswerFigures, EveryStopReasonHasItsOwnWords) {
    std::set<QString> texts;
    for (const StopReason reason :
         {StopReason::EndOfGeneration, StopReason::MaxTokens, StopReason::Cancelled,
          StopReason::ContextFull, StopReason::StopString, StopReason::DocumentComplete,
          StopReason::NoValidToken}) {
        texts.insert(stop_reason_text(reason));
    }
    EXPECT_EQ(texts.size(), 7u);
    EXPECT_EQ(texts.count(QString()), 0u);
}

// An answer cut before its first token has no speed to show.
TEST(AnswerFigures, AnAnswerWithoutTokensShowsNoSpeed) {
    GenerationStats stats;
    stats.prompt_tokens = 9;
    stats.cached_tokens = 4;
    stats.stop_reason = StopReason::Cancelled;
    EXPECT_EQ(answer_figures_text(stats).toStdString(),
              "0 tokens · 4 of 9 prompt tokens reused · stopped");
}

// A remote engine's answer says first where it came from; a local one does not.
TEST(AnswerFigures, ARemoteAnswerNamesItsModelAndConnection) {
    core::GenerationRecord record;
    record.stats.stop_reason = StopReason::Cancelled;
    const QString figures = answer_figures_text(record.stats);
    EXPECT_EQ(answer_figures_text(record), figures);
    record.connection = "gpu-box";
    record.remote_model = "llama-70b";
    EXPECT_EQ(answer_figures_text(record).toStdString(),
              "llama-70b · on gpu-box · " + figures.toStdString());
}

}  // namespace
}  // namespace hearth::ui
