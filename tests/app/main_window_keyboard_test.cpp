// The window from the keyboard, with real key events: Ctrl+N, Ctrl+F, Ctrl+L, Ctrl+, and
// Ctrl+Shift+C do what they say, typing goes on in the message box after every dialog, and the
// conversation list shows when it has the focus.
#include <gtest/gtest.h>

#include <QApplication>
#include <QClipboard>
#include <QDialog>
#include <QFileDialog>
#include <QImage>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QTest>
#include <QTimer>

#include "tests/support/main_window_fixture.h"
#include "ui/settings_dialog.h"

namespace hearth {
namespace {

class MainWindowKeyboardTest : public test::MainWindowTest {
protected:
    MainWindowKeyboardTest() {
        m_window.activateWindow();
        EXPECT_TRUE(QTest::qWaitForWindowActive(&m_window));
        m_prompt = child<QPlainTextEdit>("prompt");
    }

    void press(Qt::Key key, Qt::KeyboardModifiers modifiers = Qt::ControlModifier) {
        QWidget* target = QApplication::focusWidget() ? QApplication::focusWidget() : &m_window;
        QTest::keyClick(target, key, modifiers);
        QCoreApplication::processEvents();
    }

    // Closes the dialog `open` shows as soon as it is up; returns its class name.
    template <typename Open>
    QString close_dialog_opened_by(Open open) {
        QString shown;
        QTimer::singleShot(0, [&] {
            QWidget* dialog = QApplication::activeModalWidget();
            if (dialog == nullptr) return;
            shown = QString::fromLatin1(dialog->metaObject()->className());
            if (auto* modal = qobject_cast<QDialog*>(dialog)) modal->reject();
        });
        open();
        // The window is active again, as the desktop makes it when a dialog closes (the
        // offscreen platform does not): the focus goes to the widget the window last gave it.
        m_window.activateWindow();
        EXPECT_TRUE(QTest::qWaitForWindowActive(&m_window));
        QCoreApplication::processEvents();
        return shown;
    }

    QPlainTextEdit* m_prompt = nullptr;
};

TEST_F(MainWindowKeyboardTest, CtrlNStartsANewChatAndTypingGoesThere) {
    ASSERT_TRUE(load(bundled()));
    type_and_send("Once upon a time");
    ASSERT_TRUE(wait_finished());
    const int asked = m_window.current_conversation()->id();
    child<QListWidget>("conversations")->setFocus();
    press(Qt::Key_N);
    EXPECT_NE(m_window.current_conversation()->id(), asked);
    EXPECT_TRUE(m_window.current_conversation()->messages().empty());
    EXPECT_TRUE(m_prompt->hasFocus());
}

TEST_F(MainWindowKeyboardTest, CtrlFSearchesAndCtrlLGoesBackToTheMessageBox) {
    m_prompt->setFocus();
    press(Qt::Key_F);
    auto* search = child<QLineEdit>("search");
    EXPECT_TRUE(search->hasFocus());
    QTest::keyClicks(search, "story");
    EXPECT_EQ(search->text(), "story");
    press(Qt::Key_L);
    EXPECT_TRUE(m_prompt->hasFocus());
    QTest::keyClicks(m_prompt, "hello");
    EXPECT_EQ(m_prompt->toPlainText(), "hello");
}

TEST_F(MainWindowKeyboardTest, CtrlShiftCCopiesTheLastAnswer) {
    ASSERT_TRUE(load(bundled()));
    type_and_send("Once upon a time");
    ASSERT_TRUE(wait_finished());
    QApplication::clipboard()->clear();
    press(Qt::Key_C, Qt::ControlModifier | Qt::ShiftModifier);
    EXPECT_EQ(QApplication::clipboard()->text(), last_answer());
    EXPECT_FALSE(last_answer().isEmpty());
    EXPECT_EQ(child<QLabel>("status")->text(), "Copied the last answer.");
}

// Ctrl+, opens the settings; closed, the message box has the focus again, as after the model
// picker and the export and import dialogs.
TEST_F(MainWindowKeyboardTest, FocusReturnsToTheMessageBoxAfterEveryDialog) {
    child<QListWidget>("conversations")->setFocus();
    EXPECT_EQ(close_dialog_opened_by([&] { press(Qt::Key_Comma); }), "hearth::ui::SettingsDialog");
    EXPECT_TRUE(m_prompt->hasFocus());
    for (const char* button : {"chooseModel", "exportConversation", "importConversation"}) {
        child<QListWidget>("conversations")->setFocus();
        EXPECT_FALSE(close_dialog_opened_by([&] {
                         QTest::mouseClick(child<QPushButton>(button), Qt::LeftButton);
                     }).isEmpty())
            << button;
        EXPECT_TRUE(m_prompt->hasFocus()) << button;
    }
}

// The list with the keyboard focus looks different from the list without it.
TEST_F(MainWindowKeyboardTest, TheConversationListShowsItsFocus) {
    auto* list = child<QListWidget>("conversations");
    m_prompt->setFocus();
    QCoreApplication::processEvents();
    const QImage unfocused = list->grab().toImage();
    list->setFocus(Qt::TabFocusReason);
    QCoreApplication::processEvents();
    ASSERT_TRUE(list->hasFocus());
    const QImage focused = list->grab().toImage();
    ASSERT_EQ(focused.size(), unfocused.size());
    EXPECT_NE(focused, unfocused);
    // The frame, at the edge: the highlight colour.
    EXPECT_EQ(focused.pixelColor(0, focused.height() / 2),
              list->palette().color(QPalette::Highlight));
}

}  // namespace
}  // namespace hearth
