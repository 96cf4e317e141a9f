#include "tests/support/chat_window_test.h"

#include <QPlainTextEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QTest>

#include "app/bundled_model.h"
#include "app/wiring.h"
#include "ui/chat_view.h"
#include "ui/message_widget.h"

namespace hearth::test {

ChatWindowTest::ChatWindowTest() : m_engine(std::make_unique<EngineController>()) {
    wire(m_window, *m_engine);
    m_window.show();
}

QString ChatWindowTest::bundled() {
    return QString::fromStdString(bundled_model_path().string());
}

bool ChatWindowTest::load(const QString& path) {
    QSignalSpy loaded(m_engine->worker(), &InferenceWorker::modelLoaded);
    QSignalSpy failed(m_engine->worker(), &InferenceWorker::loadFailed);
    emit m_engine->loadModelRequested(path);
    EXPECT_TRUE(QTest::qWaitFor([&] { return !loaded.isEmpty() || !failed.isEmpty(); }, 20000));
    QCoreApplication::processEvents();
    return !loaded.isEmpty();
}

void ChatWindowTest::type_and_send(const QString& text) {
    auto* prompt = m_window.findChild<QPlainTextEdit*>(QStringLiteral("prompt"));
    ASSERT_NE(prompt, nullptr);
    prompt->setFocus();
    prompt->setPlainText(text);
    QTest::keyClick(prompt, Qt::Key_Return);  // Enter sends
}

bool ChatWindowTest::wait_finished(int timeout_ms) {
    const bool finished = QTest::qWaitFor([&] { return !m_window.generating(); }, timeout_ms);
    QCoreApplication::processEvents();  // widgets the answer's end added are shown
    return finished;
}

ChatWindowTest::Answer ChatWindowTest::ask_new(const QString& question,
                                               core::ConversationSettings settings) {
    QSignalSpy finished(m_engine->worker(), &InferenceWorker::generationFinished);
    m_window.newConversation();
    settings.random_seed = false;
    m_window.apply_conversation_settings(settings);
    type_and_send(question);
    EXPECT_TRUE(wait_finished());
    EXPECT_EQ(finished.size(), 1);
    if (finished.size() != 1) return {};
    return {last_message(), finished[0][1].value<GenerationResult>()};
}

ChatWindowTest::Answer ChatWindowTest::click_and_wait(int id, const char* name) {
    QSignalSpy finished(m_engine->worker(), &InferenceWorker::generationFinished);
    ui::MessageWidget* widget = widget_for(id);
    auto* button = widget ? widget->findChild<QPushButton*>(QLatin1String(name)) : nullptr;
    EXPECT_TRUE(button != nullptr && button->isVisibleTo(widget)) << name;
    if (button == nullptr) return {};
    QTest::mouseClick(button, Qt::LeftButton);
    EXPECT_TRUE(wait_finished());
    EXPECT_EQ(finished.size(), 1);
    if (finished.size() != 1) return {};
    return {last_message(), finished[0][1].value<GenerationResult>()};
}

ui::MessageWidget* ChatWindowTest::widget_for(int id) const {
    return m_window.chat_view()->message_widget(id);
}

}  // namespace hearth::test
