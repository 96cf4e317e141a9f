// The chat window on the real engine thread, for tests that drive it as a user does: load a
// model, type and send, wait for the answer, click what the answer shows.
#pragma once

#include <gtest/gtest.h>

#include <QString>

#include <memory>

#include "app/core/conversation.h"
#include "app/engine_controller.h"
#include "engine/generation/generation_request.h"
#include "ui/main_window.h"

namespace hearth::ui {
class MessageWidget;
}

namespace hearth::test {

class ChatWindowTest : public testing::Test {
protected:
    ChatWindowTest();

    // What one answer the engine reported.
    struct Answer {
        int message = -1;  // its id in the conversation on screen
        GenerationResult result;
    };

    static QString bundled();
    bool load(const QString& path);
    void type_and_send(const QString& text);
    bool wait_finished(int timeout_ms = 30000);
    // `question` asked in a new conversation with `settings` (reproducible: a fixed seed).
    Answer ask_new(const QString& question, core::ConversationSettings settings);
    // Clicks the button named `name` on message `id` and waits for the answer it asks for.
    Answer click_and_wait(int id, const char* name);
    ui::MessageWidget* widget_for(int id) const;
    int last_message() { return m_window.current_conversation()->thread().back(); }

    ui::MainWindow m_window;
    std::unique_ptr<EngineController> m_engine;
};

}  // namespace hearth::test
