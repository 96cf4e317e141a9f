// The window, the engine thread and the real bundled model, under the offscreen platform:
// what a user does, click by click.
#include "ui/main_window.h"

#include <gtest/gtest.h>

#include <QApplication>
#include <QElapsedTimer>
#include <QLabel>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSignalSpy>
#include <QTest>

#include "app/bundled_model.h"
#include "app/engine_controller.h"
#include "app/wiring.h"
#include "tests/support/temp_files.h"
#include "ui/chat_view.h"
#include "ui/markdown_view.h"
#include "ui/message_widget.h"

namespace hearth {
namespace {

QString bundled() {
    return QString::fromStdString(bundled_model_path().string());
}

class MainWindowTest : public testing::Test {
protected:
    MainWindowTest() : m_engine(std::make_unique<EngineController>()) {
        wire(m_window, *m_engine);
        m_window.show();
        auto settings = m_window.current_conversation()->settings();
        settings.random_seed = false;
        settings.sampler.seed = 7;
        settings.max_tokens = 60;
        m_window.apply_conversation_settings(settings);
    }

    template <typename T>
    T* child(const char* name, QWidget* parent = nullptr) {
        auto* found = (parent ? parent : &m_window)->findChild<T*>(QString::fromLatin1(name));
        EXPECT_NE(found, nullptr) << name;
        return found;
    }

    bool load(const QString& path) {
        QSignalSpy loaded(m_engine->worker(), &InferenceWorker::modelLoaded);
        QSignalSpy failed(m_engine->worker(), &InferenceWorker::errorOccurred);
        emit m_engine->loadModelRequested(path);
        EXPECT_TRUE(QTest::qWaitFor([&] { return !loaded.isEmpty() || !failed.isEmpty(); }, 20000));
        QCoreApplication::processEvents();
        return !loaded.isEmpty();
    }

    void type_and_send(const QString& text) {
        auto* prompt = child<QPlainTextEdit>("prompt");
        prompt->setFocus();
        prompt->setPlainText(text);
        QTest::keyClick(prompt, Qt::Key_Return);  // Enter sends
    }

    bool wait_finished(int timeout = 30000) {
        return QTest::qWaitFor([&] { return !m_window.generating(); }, timeout);
    }

    QString last_answer() {
        auto* conversation = m_window.current_conversation();
        return conversation->find(conversation->thread().back())->text;
    }

    ui::MessageWidget* widget_for(int id) { return m_window.chat_view()->message_widget(id); }

    // An answer that would run for minutes, under way: two chunks have arrived.
    void start_long_answer() {
        auto settings = m_window.current_conversation()->settings();
        settings.max_tokens = 100000;
        settings.context_length = 2048;
        settings.overflow = OverflowPolicy::RollingWindow;
        m_window.apply_conversation_settings(settings);
        QSignalSpy chunks(m_engine->worker(), &InferenceWorker::tokensReady);
        type_and_send("Once upon a time");
        ASSERT_TRUE(QTest::qWaitFor([&] { return chunks.size() >= 2; }, 10000));
    }

    ui::MainWindow m_window;
    std::unique_ptr<EngineController> m_engine;
};

TEST_F(MainWindowTest, SendsAMessageAndStreamsTheAnswerInChunks) {
    ASSERT_TRUE(load(bundled()));
    EXPECT_TRUE(child<QLabel>("model")->text().contains("llama"));
    QSignalSpy chunks(m_engine->worker(), &InferenceWorker::tokensReady);
    QSignalSpy finished(m_engine->worker(), &InferenceWorker::generationFinished);
    type_and_send("Once upon a time");
    EXPECT_TRUE(m_window.generating());
    EXPECT_FALSE(child<QPushButton>("send")->isEnabled());
    EXPECT_TRUE(child<QPushButton>("stop")->isEnabled());
    ASSERT_TRUE(wait_finished());
    EXPECT_GE(chunks.size(), 2);
    ASSERT_EQ(finished.size(), 1);
    const auto result = finished[0][1].value<GenerationResult>();
    EXPECT_EQ(result.stats.generated_tokens, 60);
    // The message on screen is exactly the streamed text, rendered.
    const auto thread = m_window.current_conversation()->thread();
    ASSERT_EQ(thread.size(), 2u);
    EXPECT_EQ(last_answer(), QString::fromStdString(result.text));
    auto* view = widget_for(thread.back())->view();
    EXPECT_EQ(view->text(), QString::fromStdString(result.text));
    EXPECT_FALSE(view->findChildren<QLabel*>("prose").isEmpty());
    EXPECT_TRUE(child<QLabel>("status")->text().contains("tok/s"));
    EXPECT_GT(child<QProgressBar>("contextMeter")->value(), 60);
    EXPECT_TRUE(child<QPushButton>("send")->isEnabled());
    EXPECT_EQ(child<QPlainTextEdit>("prompt")->toPlainText(), "");
    EXPECT_EQ(m_window.current_conversation()->title(), "Once upon a time");
}

TEST_F(MainWindowTest, ShiftEnterStartsANewLineInsteadOfSending) {
    ASSERT_TRUE(load(bundled()));
    auto* prompt = child<QPlainTextEdit>("prompt");
    prompt->setFocus();
    QTest::keyClicks(prompt, "first");
    QTest::keyClick(prompt, Qt::Key_Return, Qt::ShiftModifier);
    QTest::keyClicks(prompt, "second");
    EXPECT_FALSE(m_window.generating());
    EXPECT_EQ(prompt->toPlainText(), "first\nsecond");
}

TEST_F(MainWindowTest, StopEndsTheAnswerAndMarksItUnfinished) {
    ASSERT_TRUE(load(bundled()));
    start_long_answer();
    QElapsedTimer clock;
    clock.start();
    QTest::keyClick(&m_window, Qt::Key_Escape);  // Esc stops
    ASSERT_TRUE(wait_finished(5000));
    EXPECT_LT(clock.elapsed(), 1000);
    const auto id = m_window.current_conversation()->thread().back();
    EXPECT_FALSE(m_window.current_conversation()->find(id)->finished);
    EXPECT_EQ(m_window.current_conversation()->find(id)->stats->stop_reason, StopReason::Cancelled);
    EXPECT_EQ(child<QLabel>("messageNote", widget_for(id))->text(), "(stopped before the end)");
}

TEST_F(MainWindowTest, RegenerateAddsABranchAndTheOldAnswerStaysReachable) {
    ASSERT_TRUE(load(bundled()));
    type_and_send("Once upon a time");
    ASSERT_TRUE(wait_finished());
    const QString first = last_answer();
    auto settings = m_window.current_conversation()->settings();
    settings.sampler.seed = 8;  // a different answer
    m_window.apply_conversation_settings(settings);
    const auto first_id = m_window.current_conversation()->thread().back();
    QTest::mouseClick(child<QPushButton>("regenerate", widget_for(first_id)), Qt::LeftButton);
    ASSERT_TRUE(wait_finished());
    const auto second_id = m_window.current_conversation()->thread().back();
    EXPECT_NE(second_id, first_id);
    EXPECT_NE(last_answer(), first);
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

TEST_F(MainWindowTest, ACorruptModelShowsTheEngineErrorAndTheAppKeepsWorking) {
    ASSERT_TRUE(load(bundled()));
    const test::TempDirectory directory;
    auto bytes = test::read_bytes(bundled_model_path());
    bytes.resize(4000);
    const auto broken = directory.write("broken.gguf", bytes);
    EXPECT_FALSE(load(QString::fromStdString(broken.string())));
    EXPECT_TRUE(child<QLabel>("status")->text().contains("truncated or corrupt file"));
    // The previous model is still loaded and answers.
    type_and_send("Once upon a time");
    ASSERT_TRUE(wait_finished());
    EXPECT_FALSE(last_answer().isEmpty());
}

TEST_F(MainWindowTest, QuittingMidAnswerStopsWithinASecond) {
    ASSERT_TRUE(load(bundled()));
    start_long_answer();
    QElapsedTimer clock;
    clock.start();
    m_engine.reset();  // what closing the window does
    EXPECT_LT(clock.elapsed(), 1000);
}

}  // namespace
}  // namespace hearth
