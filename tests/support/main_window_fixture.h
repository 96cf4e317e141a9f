// The window on the real engine thread with short, reproducible answers, for the tests of its
// parts (tests/app/main_window*_test.cpp): the helpers they share.
#pragma once

#include <gtest/gtest.h>

#include <QLayout>
#include <QListWidget>
#include <QSignalSpy>
#include <QTest>

#include <string>
#include <vector>

#include "app/core/history_store.h"
#include "tests/support/chat_window_test.h"
#include "tests/support/temp_files.h"
#include "ui/chat_view.h"
#include "ui/markdown_view.h"
#include "ui/message_widget.h"

namespace hearth::test {

class MainWindowTest : public test::ChatWindowTest {
protected:
    MainWindowTest() { use_test_settings(); }

    // Short, reproducible answers.
    void use_test_settings() {
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

    QString last_answer() {
        auto* conversation = m_window.current_conversation();
        return conversation->find(conversation->thread().back())->text;
    }

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
};

// The window with a real history file.
class MainWindowHistoryTest : public MainWindowTest {
protected:
    QString database() const {
        return QString::fromStdString((m_directory.path() / "history.sqlite").string());
    }
    // The window keeping its conversations in `history`, one answer already given.
    void answer_once_with(core::HistoryStore& history) {
        m_window.set_history(&history);
        use_test_settings();
        ASSERT_TRUE(load(bundled()));
        type_and_send("Once upon a time");
        ASSERT_TRUE(wait_finished());
    }
    test::TempDirectory m_directory;
};

using Texts = std::vector<std::string>;

// What the chat view shows, top to bottom: every message's text as its view holds it.
inline Texts shown_messages(const ui::MainWindow& window) {
    Texts texts;
    const QLayout* layout = window.chat_view()->widget()->layout();
    for (int i = 0; i < layout->count(); ++i) {
        if (const auto* message = qobject_cast<ui::MessageWidget*>(layout->itemAt(i)->widget()))
            texts.push_back(message->view()->text().toStdString());
    }
    return texts;
}

}  // namespace hearth::test
