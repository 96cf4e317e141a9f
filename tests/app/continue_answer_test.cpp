// Continue, on an answer the token limit cut off, with the real engine thread and model: the
// engine receives the conversation with the partial answer as the assistant's message to go on
// with (no end of turn after it), reads it from the cache, and the same message grows.
#include <gtest/gtest.h>

#include <QLabel>
#include <QSignalSpy>

#include "engine/format/gguf_file.h"
#include "engine/text/chat_prompt.h"
#include "tests/support/chat_window_test.h"
#include "tests/support/templated_model.h"
#include "ui/markdown_view.h"
#include "ui/message_widget.h"

namespace hearth {
namespace {

class ContinueAnswerTest : public test::ChatWindowTest {
protected:
    // Greedy, so the answer continued equals the one written in one go.
    core::ConversationSettings greedy(int max_tokens) {
        auto settings = m_window.current_conversation()->settings();
        settings.sampler.temperature = 0.0f;
        settings.max_tokens = max_tokens;
        return settings;
    }

    // Asks `question` cut off at `cut_at` tokens and continues it once by as many, after asking
    // it in one go with twice as many: checks that Continue grows the same message into the
    // answer written in one go, reading the answer so far from the cache. Returns what the
    // engine reported for the continuation.
    GenerationResult expect_continue_grows_the_answer(const QString& question, int cut_at) {
        const Answer whole = ask_new(question, greedy(2 * cut_at));
        const Answer cut = ask_new(question, greedy(cut_at));
        EXPECT_EQ(cut.result.stats.stop_reason, StopReason::MaxTokens);
        EXPECT_EQ(cut.result.stats.generated_tokens, cut_at);
        EXPECT_TRUE(figures(cut.message).contains(QStringLiteral("cut off at the token limit")))
            << figures(cut.message).toStdString();
        QSignalSpy asked(&m_window, &ui::MainWindow::generateRequested);
        const Answer continued = click_and_wait(cut.message, "continueAnswer");
        if (asked.size() != 1) {
            ADD_FAILURE() << "nothing asked of the engine";
            return {};
        }
        const auto request = asked[0][0].value<ChatRequest>();
        // The conversation so far, the partial answer last, as the assistant's.
        EXPECT_EQ(request.messages.size(), 2u);
        EXPECT_EQ(request.messages.back().role, "assistant");
        EXPECT_EQ(request.messages.back().content, cut.result.text);
        const GenerationStats& stats = continued.result.stats;
        // The prompt is the first one and the answer so far, every token of it but the last
        // (which always runs again) read from the cache.
        EXPECT_EQ(stats.prompt_tokens, cut.result.stats.prompt_tokens + cut_at);
        EXPECT_EQ(stats.cached_tokens, stats.prompt_tokens - 1);
        EXPECT_EQ(stats.prefilled_tokens, 1);
        // The same message grew: no new version, the same id, the words of the answer in one go.
        const auto* conversation = m_window.current_conversation();
        EXPECT_EQ(continued.message, cut.message);
        EXPECT_EQ(conversation->thread().size(), 2u);
        EXPECT_EQ(conversation->siblings(cut.message).size(), 1u);
        const std::string text = conversation->find(cut.message)->text.toStdString();
        EXPECT_EQ(text, cut.result.text + continued.result.text);
        EXPECT_EQ(text, whole.result.text);
        EXPECT_EQ(widget_for(cut.message)->view()->text().toStdString(), text);
        // Its figures count the whole answer, under it and in the status line.
        EXPECT_TRUE(figures(cut.message).contains(QStringLiteral("%1 tokens").arg(2 * cut_at)))
            << figures(cut.message).toStdString();
        const auto* status = m_window.findChild<QLabel*>(QStringLiteral("status"));
        EXPECT_TRUE(status->text().startsWith(figures(cut.message)))
            << status->text().toStdString();
        return continued.result;
    }

    QString figures(int id) {
        const auto* label = widget_for(id)->findChild<QLabel*>(QStringLiteral("answerFigures"));
        return label != nullptr ? label->text() : QString();
    }
};

// A model without a chat template continues plain text: the question and the answer so far.
TEST_F(ContinueAnswerTest, ContinueGrowsTheSameAnswerFromTheCache) {
    ASSERT_TRUE(load(bundled()));
    expect_continue_grows_the_answer(QStringLiteral("Once upon a time"), 24);
}

// Through a chat template the answer so far is left open: no end of turn after it, so the
// model writes on inside the same turn (ChatML's "<|im_end|>" would make it a finished turn).
TEST_F(ContinueAnswerTest, ThroughAChatTemplateTheAnswerIsLeftOpen) {
    const test::TempDirectory directory;
    const auto model =
        test::model_with_template(directory, "stories260K.gguf", test::fixture_template("chatml"));
    ASSERT_TRUE(load(QString::fromStdString(model.string())));
    const auto continued = expect_continue_grows_the_answer(QStringLiteral("Tell me a story."), 20);
    // The prompt is the generation prompt of the question followed by the answer so far.
    const auto file = GgufFile::open(model);
    const auto tokenizer = make_tokenizer(*file);
    const auto chat = ChatTemplate::from_model(*file, tokenizer->vocabulary());
    const auto asked = build_chat_prompt(chat, *tokenizer, {{"user", "Tell me a story."}}, {});
    EXPECT_TRUE(asked.text.ends_with("<|im_start|>assistant\n"));
    const QString so_far = m_window.current_conversation()
                               ->find(last_message())
                               ->text.chopped(static_cast<qsizetype>(continued.text.size()));
    const auto expected = tokenizer->encode(asked.text + so_far.toStdString(),
                                            {.add_special = true, .parse_special = true});
    EXPECT_EQ(continued.stats.prompt_tokens, static_cast<int>(expected.size()));
}

}  // namespace
}  // namespace hearth
