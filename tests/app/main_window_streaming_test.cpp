// The window's answers on the real engine thread: regenerate and edit-and-resend branch the
// conversation and ask the engine from the right message; an answer streams into its own
// conversation only.
#include <gtest/gtest.h>

#include <QLabel>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QTest>

#include "tests/support/main_window_fixture.h"
#include "tests/support/templated_model.h"

namespace hearth {
namespace {

using test::MainWindowTest;
using test::shown_messages;
using test::Texts;

TEST_F(MainWindowTest, RegenerateAddsABranchAndTheOldAnswerStaysReachable) {
    ASSERT_TRUE(load(bundled()));
    QSignalSpy finished(m_engine->worker(), &InferenceWorker::generationFinished);
    type_and_send("Once upon a time");
    ASSERT_TRUE(wait_finished());
    const QString first = last_answer();
    auto settings = m_window.current_conversation()->settings();
    settings.sampler.seed = 8;  // a different answer
    m_window.apply_conversation_settings(settings);
    const auto first_id = m_window.current_conversation()->thread().back();
    QSignalSpy requests(&m_window, &ui::MainWindow::generateRequested);
    QTest::mouseClick(child<QPushButton>("regenerate", widget_for(first_id)), Qt::LeftButton);
    ASSERT_TRUE(wait_finished());
    // Asked from the question alone: the answer it replaces is not shown to the model.
    ASSERT_EQ(requests.size(), 1);
    const auto request = requests.front().front().value<ChatRequest>();
    ASSERT_EQ(request.messages.size(), 1u);
    EXPECT_EQ(request.messages.front().content, "Once upon a time");
    // The engine received the question's prompt again, not the old answer after it: the same
    // prompt tokens, the cache reused up to the question at most, and a fresh answer.
    ASSERT_EQ(finished.size(), 2);
    const auto asked = finished[0][1].value<GenerationResult>().stats;
    const auto regenerated = finished[1][1].value<GenerationResult>().stats;
    EXPECT_EQ(regenerated.prompt_tokens, asked.prompt_tokens);
    EXPECT_LT(regenerated.cached_tokens, regenerated.prompt_tokens);
    const auto second_id = m_window.current_conversation()->thread().back();
    EXPECT_NE(second_id, first_id);
    EXPECT_NE(last_answer(), first);
    EXPECT_FALSE(last_answer().startsWith(first));
    EXPECT_EQ(child<QLabel>("branchPlace", widget_for(second_id))->text(), "2/2");
    QTest::mouseClick(child<QPushButton>("previousBranch", widget_for(second_id)), Qt::LeftButton);
    EXPECT_EQ(m_window.current_conversation()->thread().back(), first_id);
    EXPECT_EQ(widget_for(first_id)->view()->text(), first);
    EXPECT_EQ(child<QLabel>("branchPlace", widget_for(first_id))->text(), "1/2");
}

TEST_F(MainWindowTest, EditAndResendForksTheConversation) {
    ASSERT_TRUE(load(bundled()));
    type_and_send("Once upon a time");
    ASSERT_TRUE(wait_finished());
    auto* conversation = m_window.current_conversation();
    const auto old_thread = conversation->thread();
    auto* question = widget_for(old_thread.front());
    QTest::mouseClick(child<QPushButton>("editMessage", question), Qt::LeftButton);
    auto* editor = child<QPlainTextEdit>("messageEditor", question);
    EXPECT_EQ(editor->toPlainText(), "Once upon a time");
    editor->setPlainText("Lily and Tom went to the park.");
    QTest::mouseClick(child<QPushButton>("sendEdit", question), Qt::LeftButton);
    ASSERT_TRUE(wait_finished());
    const auto new_thread = conversation->thread();
    ASSERT_EQ(new_thread.size(), 2u);
    EXPECT_NE(new_thread.front(), old_thread.front());
    EXPECT_EQ(conversation->find(new_thread.front())->text, "Lily and Tom went to the park.");
    EXPECT_EQ(conversation->siblings(new_thread.front()),
              (std::vector<int>{old_thread.front(), new_thread.front()}));
    // The old branch, question and answer, is one click away.
    QTest::mouseClick(child<QPushButton>("previousBranch", widget_for(new_thread.front())),
                      Qt::LeftButton);
    EXPECT_EQ(conversation->thread(), old_thread);
}

// An answer streaming in one conversation shows in no other: clicked away from while it
// streams, then back, each conversation shows its own messages, and the answer whole at the end.
TEST_F(MainWindowTest, AnAnswerStreamingInOneConversationShowsInNoOther) {
    ASSERT_TRUE(load(bundled()));
    type_and_send("Lily and Tom went to the park.");
    ASSERT_TRUE(wait_finished());
    const Texts other = shown_messages(m_window);
    m_window.newConversation();
    QSignalSpy chunks(m_engine->worker(), &InferenceWorker::tokensReady);
    QSignalSpy finished(m_engine->worker(), &InferenceWorker::generationFinished);
    ASSERT_NO_FATAL_FAILURE(start_long_answer());  // in the new conversation, the list's first
    auto* list = child<QListWidget>("conversations");
    for (const int row : {1, 0, 1, 0}) {
        QTest::mouseClick(list->viewport(), Qt::LeftButton, {},
                          list->visualItemRect(list->item(row)).center());
        const auto arrived = chunks.size();
        ASSERT_TRUE(QTest::qWaitFor([&] { return chunks.size() >= arrived + 3; }, 10000));
        if (row == 1) {
            EXPECT_EQ(shown_messages(m_window), other);
        }
    }
    QTest::keyClick(&m_window, Qt::Key_Escape);
    ASSERT_TRUE(wait_finished());
    ASSERT_EQ(finished.size(), 1);
    EXPECT_EQ(shown_messages(m_window),
              (Texts{"Once upon a time", finished[0][1].value<GenerationResult>().text}));
}

// Regenerate asks again from the question: the engine receives exactly the conversation up to
// it (the first answer's prompt, every token of it in the cache when the new answer starts and
// none of the old answer's), and the new version is what a conversation that never had the old
// answer gets from the same seed, not a continuation of the old one.
class MainWindowRegenerateTest : public MainWindowTest {
protected:
    struct Answer {
        GenerationStats stats;
        std::string text;
    };

    // `turns` asked in a new conversation with `settings`, every answer from seed 7 but the
    // last, from `last_seed`: the last answer as the engine reported it.
    Answer ask(const QStringList& turns, core::ConversationSettings settings, uint64_t last_seed) {
        QSignalSpy finished(m_engine->worker(), &InferenceWorker::generationFinished);
        m_window.newConversation();
        settings.random_seed = false;
        for (int i = 0; i < turns.size(); ++i) {
            settings.sampler.seed = i + 1 == turns.size() ? last_seed : 7;
            m_window.apply_conversation_settings(settings);
            type_and_send(turns[i]);
            EXPECT_TRUE(wait_finished());
        }
        EXPECT_EQ(finished.size(), turns.size());
        if (finished.size() != turns.size()) return {};
        const auto result = finished.back()[1].value<GenerationResult>();
        return {result.stats, result.text};
    }

    // Regenerates the last answer of `turns` (asked with `settings`) from seed 8, clicking its
    // Regenerate button, and checks what the engine received and what the window shows. Returns
    // the first version's answer.
    Answer expect_regenerate_asks_from_the_question(const core::ConversationSettings& settings,
                                                    const QStringList& turns) {
        const Answer asked = ask(turns, settings, 7);
        auto changed = settings;
        changed.random_seed = false;
        changed.sampler.seed = 8;
        m_window.apply_conversation_settings(changed);
        QSignalSpy finished(m_engine->worker(), &InferenceWorker::generationFinished);
        const int answer = m_window.current_conversation()->thread().back();
        QTest::mouseClick(child<QPushButton>("regenerate", widget_for(answer)), Qt::LeftButton);
        EXPECT_TRUE(wait_finished());
        EXPECT_EQ(finished.size(), 1);
        if (finished.size() != 1) return asked;
        const auto regenerated = finished[0][1].value<GenerationResult>();
        const GenerationStats& stats = regenerated.stats;
        EXPECT_EQ(stats.prompt_tokens, asked.stats.prompt_tokens);
        // The cache is reused up to the question's end at most (its last token always runs
        // again), and holds every token of the question when the answer starts.
        EXPECT_LT(stats.cached_tokens, asked.stats.prompt_tokens);
        EXPECT_EQ(stats.cached_tokens + stats.prefilled_tokens, stats.prompt_tokens);
        EXPECT_EQ(shown_messages(m_window).back(), regenerated.text);
        EXPECT_FALSE(regenerated.text.starts_with(asked.text)) << regenerated.text;
        EXPECT_EQ(regenerated.text, ask(turns, settings, 8).text);  // a fresh conversation's
        return asked;
    }
};

TEST_F(MainWindowRegenerateTest, OfAFirstAnswer) {
    ASSERT_TRUE(load(bundled()));
    auto settings = m_window.current_conversation()->settings();
    settings.max_tokens = 40;
    expect_regenerate_asks_from_the_question(settings, {"Once upon a time"});
}

// A chat template's prompt (ChatML's turns around the messages), two turns deep: the second
// answer is asked again after the first question, the first answer and the second question.
TEST_F(MainWindowRegenerateTest, OfALaterAnswerThroughAChatTemplate) {
    const test::TempDirectory directory;
    const auto model =
        test::model_with_template(directory, "stories260K.gguf", test::fixture_template("chatml"));
    ASSERT_TRUE(load(QString::fromStdString(model.string())));
    auto settings = m_window.current_conversation()->settings();
    settings.max_tokens = 40;
    expect_regenerate_asks_from_the_question(settings, {"Tell me a story.", "Make it longer."});
}

// An answer that outgrew the context: the rolling window took most of the question out of the
// cache to go on. The question alone fits again, so the new version reads all of it.
TEST_F(MainWindowRegenerateTest, OfAnAnswerThatOutgrewTheContext) {
    ASSERT_TRUE(load(bundled()));
    auto settings = m_window.current_conversation()->settings();
    settings.context_length = 128;
    settings.max_tokens = 200;
    settings.overflow = OverflowPolicy::RollingWindow;
    const Answer first = expect_regenerate_asks_from_the_question(
        settings, {"Once upon a time, there was a little girl named Lily. She liked to play."});
    EXPECT_GT(first.stats.dropped_tokens, first.stats.prompt_tokens / 2);
}

}  // namespace
}  // namespace hearth
