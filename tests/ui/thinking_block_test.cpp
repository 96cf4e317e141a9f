// The "Thinking" block above an answer, as the user meets it: it appears when reasoning
// streams in, counts it, closes when the answer begins, comes back closed from the history,
// opens and closes with the mouse and the keyboard, and is absent for answers without
// reasoning. Copy copies the answer alone.
#include "ui/thinking_block.h"

#include <gtest/gtest.h>

#include <functional>

#include <QApplication>
#include <QClipboard>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QTest>
#include <QToolButton>

#include "ui/chat_view.h"
#include "ui/markdown_view.h"
#include "ui/message_widget.h"

namespace hearth::ui {
namespace {

TokenChunk chunk(const std::string& reasoning, int reasoning_tokens, const std::string& text,
                 int64_t first_ns, int tokens) {
    TokenChunk out;
    out.reasoning = reasoning;
    out.reasoning_tokens = reasoning_tokens;
    out.text = text;
    for (int i = 0; i < tokens; ++i) {
        out.tokens.push_back(100 + i);
        out.token_times_ns.push_back(first_ns + i * 1'000'000);
    }
    return out;
}

// Runs the event loop until `condition` holds (a frame's timer fired), for at most 5 s.
bool eventually(const std::function<bool()>& condition) {
    for (int i = 0; i < 500 && !condition(); ++i) QTest::qWait(10);
    return condition();
}

core::Conversation asked(const QString& question) {
    core::Conversation conversation(1, question);
    const int id = conversation.add(-1, QStringLiteral("user"), question);
    conversation.add(id, QStringLiteral("assistant"), QString(), false);
    return conversation;
}

class ThinkingBlockTest : public testing::Test {
protected:
    void SetUp() override {
        m_view.resize(640, 480);
        m_view.show();
    }
    MessageWidget* answer() const { return m_view.message_widget(2); }
    ThinkingBlock* block() const { return answer() ? answer()->thinking_block() : nullptr; }
    QToolButton* toggle() const { return block()->findChild<QToolButton*>("thinkingToggle"); }
    QPlainTextEdit* body() const { return block()->findChild<QPlainTextEdit*>("thinkingText"); }

    ChatView m_view;
};

TEST_F(ThinkingBlockTest, StreamsOpenThenClosesWhenTheAnswerBegins) {
    auto conversation = asked("What is 2+2?");
    m_view.show_conversation(conversation, 2);
    ASSERT_EQ(m_view.streaming_widget(), answer());
    EXPECT_EQ(block(), nullptr);  // nothing reasoned yet

    answer()->append_streamed(chunk("Two and ", 3, "", 5'000'000, 3));
    ASSERT_NE(block(), nullptr);
    EXPECT_TRUE(block()->thinking());
    EXPECT_TRUE(block()->expanded());
    EXPECT_EQ(body()->toPlainText(), "");  // applied at the next frame, not per chunk
    EXPECT_TRUE(eventually([&] { return body()->toPlainText() == "Two and "; }));
    EXPECT_EQ(block()->summary(), "Thinking… 3 tokens");
    answer()->append_streamed(chunk("two make four.", 4, "", 8'000'000, 4));
    EXPECT_TRUE(eventually([&] { return block()->summary() == "Thinking… 7 tokens"; }));

    // The answer's first token, 3.2 s after the first reasoning token.
    answer()->append_streamed(chunk("", 0, "It is 4.", 3'205'000'000, 2));
    EXPECT_FALSE(block()->thinking());
    EXPECT_FALSE(block()->expanded());
    EXPECT_EQ(block()->text(), "Two and two make four.");
    EXPECT_EQ(block()->summary(), "Thought for 3.2 s · 7 tokens");

    // Finished: the engine's own figures stand, the block stays closed.
    conversation.find(2)->text = "It is 4.";
    conversation.find(2)->reasoning = "Two and two make four.";
    conversation.find(2)->finished = true;
    core::GenerationRecord record;
    record.stats.generated_tokens = 9;
    record.stats.reasoning_tokens = 8;
    record.stats.reasoning_ns = 3'150'000'000;
    conversation.find(2)->generation = record;
    m_view.show_conversation(conversation, -1);
    EXPECT_EQ(block()->summary(), "Thought for 3.1 s · 8 tokens");
    EXPECT_FALSE(block()->expanded());

    // Copy gives the answer, not the reasoning.
    answer()->findChild<QPushButton*>("copyMessage")->click();
    EXPECT_EQ(QApplication::clipboard()->text(), "It is 4.");
}

TEST_F(ThinkingBlockTest, RestoredFromTheHistoryClosedAndTogglesWithMouseAndKeyboard) {
    auto conversation = asked("What is 2+2?");
    auto& answer_message = *conversation.find(2);
    answer_message.text = "It is 4.";
    answer_message.reasoning = "Two and two make four.";
    answer_message.finished = true;
    core::GenerationRecord record;
    record.stats.reasoning_tokens = 154;
    record.stats.reasoning_ns = 3'200'000'000;
    answer_message.generation = record;
    m_view.show_conversation(conversation, -1);
    QApplication::processEvents();  // widgets added to a shown window show once events run
    ASSERT_NE(block(), nullptr);
    EXPECT_TRUE(toggle()->isVisible());
    EXPECT_FALSE(block()->expanded());
    EXPECT_FALSE(body()->isVisible());
    EXPECT_EQ(block()->summary(), "Thought for 3.2 s · 154 tokens");
    EXPECT_EQ(body()->toPlainText(), "Two and two make four.");

    QTest::mouseClick(toggle(), Qt::LeftButton);
    EXPECT_TRUE(block()->expanded());
    EXPECT_TRUE(body()->isVisible());
    QTest::mouseClick(toggle(), Qt::LeftButton);
    EXPECT_FALSE(block()->expanded());

    toggle()->setFocus();
    QTest::keyClick(toggle(), Qt::Key_Space);
    EXPECT_TRUE(block()->expanded());
    QTest::keyClick(toggle(), Qt::Key_Space);
    EXPECT_FALSE(block()->expanded());
}

TEST_F(ThinkingBlockTest, AnAnswerWithoutReasoningHasNoBlock) {
    auto conversation = asked("Hi");
    m_view.show_conversation(conversation, 2);
    answer()->append_streamed(chunk("", 0, "Hello!", 1'000'000, 2));
    EXPECT_EQ(block(), nullptr);
    conversation.find(2)->text = "Hello!";
    conversation.find(2)->generation = core::GenerationRecord{};
    m_view.show_conversation(conversation, -1);
    EXPECT_EQ(block(), nullptr);
    m_view.rebuild();
    m_view.show_conversation(conversation, -1);
    EXPECT_EQ(block(), nullptr);
}

}  // namespace
}  // namespace hearth::ui
