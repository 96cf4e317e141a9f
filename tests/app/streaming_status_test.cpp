// While an answer streams, the window says how it is going: the status line and the context
// meter move with every chunk (they used to stay on "Reading the conversation: N of N
// tokens…"), and the dashboard shows this answer's time to first token, not the last one's.
// Once it ends, the figures under it are the engine's own.
#include <gtest/gtest.h>

#include <QKeyEvent>
#include <QLabel>
#include <QProgressBar>
#include <QSignalSpy>
#include <QTest>

#include "tests/support/chat_window_test.h"
#include "tests/support/shared_data.h"
#include "tests/support/temp_files.h"
#include "tests/support/templated_model.h"
#include "ui/message_widget.h"
#include "ui/performance_dashboard.h"
#include "ui/thinking_block.h"

namespace hearth {
namespace {

class StreamingStatusTest : public test::ChatWindowTest {
protected:
    StreamingStatusTest() {
        m_status = m_window.findChild<QLabel*>(QStringLiteral("status"));
        m_meter = m_window.findChild<QProgressBar*>(QStringLiteral("contextMeter"));
        m_first_token = m_window.dashboard()->findChild<QLabel*>(QStringLiteral("firstToken"));
    }

    // An answer that would run for minutes, started with `chunks` spying on its hand-offs.
    void start_long_answer(QSignalSpy& chunks) {
        auto settings = m_window.current_conversation()->settings();
        settings.max_tokens = 100000;
        settings.context_length = 2048;
        settings.random_seed = false;
        m_window.apply_conversation_settings(settings);
        type_and_send(QStringLiteral("Once upon a time"));
        ASSERT_TRUE(QTest::qWaitFor([&] { return chunks.size() >= 3; }, 10000));
    }

    // Waits for `more` chunks beyond those seen, then lets the window take them in.
    void wait_chunks(QSignalSpy& chunks, int more) {
        const auto seen = chunks.size();
        ASSERT_TRUE(QTest::qWaitFor([&] { return chunks.size() >= seen + more; }, 10000));
        QTest::qWait(40);  // a frame or two
    }

    void stop() {
        QTest::keyClick(&m_window, Qt::Key_Escape);
        ASSERT_TRUE(wait_finished());
    }

    QLabel* m_status;
    QProgressBar* m_meter;
    QLabel* m_first_token;
};

TEST_F(StreamingStatusTest, TheStatusLineAndContextMeterMoveWhileTheAnswerStreams) {
    ASSERT_TRUE(load(bundled()));
    QSignalSpy chunks(m_engine->worker(), &InferenceWorker::tokensReady);
    ASSERT_NO_FATAL_FAILURE(start_long_answer(chunks));
    ASSERT_NO_FATAL_FAILURE(wait_chunks(chunks, 1));
    const QString status = m_status->text();
    const int used = m_meter->value();
    ASSERT_NO_FATAL_FAILURE(wait_chunks(chunks, 10));
    EXPECT_FALSE(m_status->text().contains(QStringLiteral("Reading the conversation")))
        << m_status->text().toStdString();
    EXPECT_TRUE(m_status->text().contains(QStringLiteral("tokens")))
        << m_status->text().toStdString();
    EXPECT_NE(m_status->text().toStdString(), status.toStdString());
    // The meter counts the prompt and every token written so far: it grows with the answer.
    EXPECT_GT(m_meter->value(), used);
    ASSERT_NO_FATAL_FAILURE(stop());
}

TEST_F(StreamingStatusTest, TheDashboardShowsTheFirstTokenTimeOfTheAnswerStreaming) {
    ASSERT_TRUE(load(bundled()));
    auto settings = m_window.current_conversation()->settings();
    settings.max_tokens = 8;
    const Answer first = ask_new(QStringLiteral("Lily and Tom went to the park."), settings);
    const auto in_ms = [](int64_t ns) { return QStringLiteral("%1 ms").arg(ns / 1e6, 0, 'f', 1); };
    EXPECT_EQ(m_first_token->text().toStdString(),
              in_ms(first.result.stats.time_to_first_token_ns).toStdString());
    QSignalSpy chunks(m_engine->worker(), &InferenceWorker::tokensReady);
    ASSERT_NO_FATAL_FAILURE(start_long_answer(chunks));
    QTest::qWait(40);
    const auto first_chunk = chunks[0][1].value<TokenChunk>();
    ASSERT_FALSE(first_chunk.token_times_ns.empty());
    // The first token's time since the request began: the answer's time to first token.
    EXPECT_EQ(m_first_token->text().toStdString(),
              in_ms(first_chunk.token_times_ns.front()).toStdString());
    ASSERT_NO_FATAL_FAILURE(stop());
}

TEST_F(StreamingStatusTest, TheFiguresUnderAnAnswerAreTheEnginesOwn) {
    ASSERT_TRUE(load(bundled()));
    auto settings = m_window.current_conversation()->settings();
    settings.max_tokens = 30;
    const Answer answer = ask_new(QStringLiteral("Once upon a time"), settings);
    const GenerationStats& stats = answer.result.stats;
    const auto* label =
        widget_for(answer.message)->findChild<QLabel*>(QStringLiteral("answerFigures"));
    ASSERT_NE(label, nullptr);
    const QString figures = label->text();
    for (const QString& fact :
         {QStringLiteral("%1 tokens").arg(stats.generated_tokens),
          QStringLiteral("%1 tok/s").arg(stats.decode_tokens_per_second(), 0, 'f', 1),
          QStringLiteral("%1 of %2 prompt tokens reused")
              .arg(stats.cached_tokens)
              .arg(stats.prompt_tokens)}) {
        EXPECT_TRUE(figures.contains(fact))
            << fact.toStdString() << " not in " << figures.toStdString();
    }
}

// A reasoning model (stories260K behind a DeepSeek-R1 distill's template, whose prompt opens
// the reasoning block, so all it writes is reasoning): the status line says it is thinking,
// the answer shows a Thinking block that streams, and the message keeps the reasoning apart
// from its (empty) answer, with the engine's count under the block.
TEST_F(StreamingStatusTest, AReasoningModelIsShownThinking) {
    const test::TempDirectory directory;
    const auto model = test::model_with_template(directory, "stories260K.gguf",
                                                 test::fixture_template("deepseek-r1-distill"));
    ASSERT_TRUE(load(QString::fromStdString(model.string())));
    QSignalSpy chunks(m_engine->worker(), &InferenceWorker::tokensReady);
    ASSERT_NO_FATAL_FAILURE(start_long_answer(chunks));
    ASSERT_NO_FATAL_FAILURE(wait_chunks(chunks, 2));
    EXPECT_TRUE(m_status->text().startsWith(QStringLiteral("Thinking…")))
        << m_status->text().toStdString();
    const int id = last_message();
    const auto* block = widget_for(id)->thinking_block();
    ASSERT_NE(block, nullptr);
    EXPECT_TRUE(block->thinking());
    EXPECT_TRUE(block->expanded());
    ASSERT_NO_FATAL_FAILURE(stop());
    const core::Message& message = *m_window.current_conversation()->find(id);
    EXPECT_EQ(message.text, "");
    EXPECT_FALSE(message.reasoning.isEmpty());
    ASSERT_TRUE(message.generation);
    const auto& stats = message.generation->stats;
    EXPECT_EQ(stats.reasoning_tokens, stats.generated_tokens);
    EXPECT_TRUE(widget_for(id)->thinking_block()->summary().endsWith(
        QStringLiteral("%1 tokens").arg(stats.reasoning_tokens)))
        << widget_for(id)->thinking_block()->summary().toStdString();
}

}  // namespace
}  // namespace hearth
