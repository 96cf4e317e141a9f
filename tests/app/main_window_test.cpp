// The window, the engine thread and the real bundled model, under the offscreen platform:
// what a user does, click by click. The window's parts have their own files beside this one
// (main_window_history_test, main_window_streaming_test, main_window_model_test).
#include "ui/main_window.h"

#include <gtest/gtest.h>

#include <QAbstractButton>
#include <QElapsedTimer>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTest>

#include "tests/support/main_window_fixture.h"
#include "ui/performance_dashboard.h"
#include "ui/prose_view.h"

namespace hearth {
namespace {

using test::MainWindowHistoryTest;
using test::MainWindowTest;

TEST_F(MainWindowTest, SendsAMessageAndStreamsTheAnswerInChunks) {
    ASSERT_TRUE(load(bundled()));
    EXPECT_TRUE(child<QLabel>("model")->text().contains("Llama"));
    QSignalSpy chunks(m_engine->worker(), &InferenceWorker::tokensReady);
    QSignalSpy finished(m_engine->worker(), &InferenceWorker::generationFinished);
    QSignalSpy prefill(m_engine->worker(), &InferenceWorker::prefillProgress);
    type_and_send("Once upon a time");
    EXPECT_TRUE(m_window.generating());
    EXPECT_FALSE(child<QPushButton>("send")->isEnabled());
    EXPECT_TRUE(child<QPushButton>("stop")->isEnabled());
    ASSERT_TRUE(wait_finished());
    EXPECT_GE(chunks.size(), 2);
    ASSERT_GE(prefill.size(), 1);  // the prompt's progress, step by step
    EXPECT_EQ(prefill.back()[1].toInt(), prefill.back()[2].toInt());
    ASSERT_EQ(finished.size(), 1);
    const auto result = finished[0][1].value<GenerationResult>();
    EXPECT_EQ(result.stats.generated_tokens, 60);
    // The message on screen is exactly the streamed text, rendered.
    const auto thread = m_window.current_conversation()->thread();
    ASSERT_EQ(thread.size(), 2u);
    EXPECT_EQ(last_answer(), QString::fromStdString(result.text));
    auto* view = widget_for(thread.back())->view();
    EXPECT_EQ(view->text(), QString::fromStdString(result.text));
    EXPECT_FALSE(view->findChildren<ui::ProseView*>().isEmpty());
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
    EXPECT_EQ(m_window.current_conversation()->find(id)->generation->stats.stop_reason,
              StopReason::Cancelled);
    EXPECT_EQ(child<QLabel>("messageNote", widget_for(id))->text(), "(stopped before the end)");
}

TEST_F(MainWindowTest, QuittingMidAnswerStopsWithinASecond) {
    ASSERT_TRUE(load(bundled()));
    start_long_answer();
    QElapsedTimer clock;
    clock.start();
    m_engine.reset();  // what closing the window does
    EXPECT_LT(clock.elapsed(), 1000);
}

// Every control can be found by a screen reader and reached from the keyboard.
TEST_F(MainWindowTest, ControlsHaveAccessibleNamesAndTakeKeyboardFocus) {
    ASSERT_TRUE(load(bundled()));
    type_and_send("Once upon a time");
    ASSERT_TRUE(wait_finished());
    int controls = 0;
    for (auto* widget : m_window.findChildren<QWidget*>()) {
        const bool control = qobject_cast<QAbstractButton*>(widget) != nullptr ||
                             qobject_cast<QPlainTextEdit*>(widget) != nullptr ||
                             qobject_cast<QLineEdit*>(widget) != nullptr ||
                             qobject_cast<QListWidget*>(widget) != nullptr;
        // Qt's own dock title buttons ("qt_…") are covered by the Performance toggle.
        if (!control || widget->objectName().isEmpty() || widget->objectName().startsWith("qt_")) {
            continue;
        }
        ++controls;
        const auto* button = qobject_cast<QAbstractButton*>(widget);
        EXPECT_TRUE(!widget->accessibleName().isEmpty() || (button && !button->text().isEmpty()))
            << widget->objectName().toStdString();
        EXPECT_NE(widget->focusPolicy() & Qt::TabFocus, 0) << widget->objectName().toStdString();
    }
    EXPECT_GT(controls, 15);
}

TEST_F(MainWindowHistoryTest, TheBenchmarkButtonStoresAResultWithTheMachineAndBuild) {
    core::HistoryStore history(database());
    m_window.set_history(&history);
    ASSERT_TRUE(load(bundled()));
    QSignalSpy finished(m_engine->worker(), &InferenceWorker::benchmarkFinished);
    QTest::mouseClick(child<QPushButton>("runBenchmark", m_window.dashboard()), Qt::LeftButton);
    ASSERT_TRUE(finished.wait(30000));
    QCoreApplication::processEvents();
    const auto stored = history.benchmarks();
    ASSERT_EQ(stored.size(), 1u);
    EXPECT_GT(stored[0].prompt_tokens_per_second, 0);
    EXPECT_GT(stored[0].generation_tokens_per_second, 0);
    EXPECT_TRUE(stored[0].machine.contains("threads"));
    EXPECT_TRUE(stored[0].build.startsWith("Hearth "));
    EXPECT_EQ(stored[0].model_file, bundled());
    EXPECT_EQ(child<QTableWidget>("benchmarks", m_window.dashboard())->rowCount(), 1);
}

}  // namespace
}  // namespace hearth
