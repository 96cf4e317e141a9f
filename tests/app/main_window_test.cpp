// The window, the engine thread and the real bundled model, under the offscreen platform.
#include "ui/main_window.h"

#include <gtest/gtest.h>

#include <QApplication>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QTest>

#include "app/bundled_model.h"
#include "app/engine_controller.h"
#include "app/wiring.h"
#include "tests/support/temp_files.h"

namespace hearth {
namespace {

class MainWindowTest : public testing::Test {
protected:
    MainWindowTest() { wire(m_window, m_engine); }

    template <typename T>
    T* child(const char* name) {
        auto* found = m_window.findChild<T*>(QString::fromLatin1(name));
        EXPECT_NE(found, nullptr) << name;
        return found;
    }

    void load(const QString& path, bool expect_success) {
        QSignalSpy loaded(m_engine.worker(), &InferenceWorker::modelLoaded);
        QSignalSpy failed(m_engine.worker(), &InferenceWorker::errorOccurred);
        emit m_engine.loadModelRequested(path);
        ASSERT_TRUE(QTest::qWaitFor([&] { return !loaded.isEmpty() || !failed.isEmpty(); }, 10000));
        ASSERT_EQ(loaded.isEmpty(), !expect_success);
        QCoreApplication::processEvents();
    }

    ui::MainWindow m_window;
    EngineController m_engine;
};

TEST_F(MainWindowTest, SendsAPromptAndShowsTheStreamedStory) {
    load(QString::fromStdString(bundled_model_path().string()), true);
    EXPECT_TRUE(child<QLabel>("model")->text().contains("llama"));
    QSignalSpy finished(m_engine.worker(), &InferenceWorker::generationFinished);
    QSignalSpy chunks(m_engine.worker(), &InferenceWorker::tokensReady);
    child<QLineEdit>("prompt")->setText("Once upon a time");
    QTest::mouseClick(child<QPushButton>("send"), Qt::LeftButton);
    EXPECT_FALSE(child<QPushButton>("send")->isEnabled());
    ASSERT_TRUE(finished.wait(20000));
    QCoreApplication::processEvents();
    EXPECT_GE(chunks.size(), 1);
    const QString transcript = child<QPlainTextEdit>("transcript")->toPlainText();
    EXPECT_TRUE(transcript.startsWith("Once upon a time")) << transcript.toStdString();
    EXPECT_GT(transcript.size(), 100) << transcript.toStdString();
    EXPECT_TRUE(child<QLabel>("status")->text().contains("tok/s"));
    EXPECT_TRUE(child<QPushButton>("send")->isEnabled());
}

TEST_F(MainWindowTest, ACorruptModelShowsTheEngineErrorAndTheAppKeepsWorking) {
    const test::TempDirectory directory;
    auto bytes = test::read_bytes(bundled_model_path());
    bytes.resize(4000);
    const auto broken = directory.write("broken.gguf", bytes);
    load(QString::fromStdString(broken.string()), false);
    EXPECT_TRUE(child<QLabel>("status")->text().contains("truncated or corrupt file"));
    load(QString::fromStdString(bundled_model_path().string()), true);
}

}  // namespace
}  // namespace hearth

int main(int argc, char** argv) {
    // ctest's test discovery starts this binary without the test environment, and with no
    // display a widget application aborts.
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication application(argc, argv);
    testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}
