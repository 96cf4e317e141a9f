// One message in the chat: who wrote it, its text (Markdown), and what can be done with it:
// copy; regenerate (the last answer); edit and resend (a user message); switch between the
// branches that editing and regenerating create; continue (the last answer, when the token
// limit cut it off). Under an answer stand its figures; above it, the model's reasoning, if it
// reasoned (a ThinkingBlock).
#pragma once

#include <QFrame>

#include "app/core/conversation.h"
#include "engine/generation/token_chunk.h"

class QLabel;
class QPlainTextEdit;
class QPushButton;
class QVBoxLayout;

namespace hearth::ui {

class MarkdownView;
class ThinkingBlock;

class MessageWidget final : public QFrame {
    Q_OBJECT

public:
    struct Context {
        int branch = 1;    // this message's place among its siblings (1-based)
        int branches = 1;  // how many siblings
        bool can_regenerate = false;
        bool can_continue = false;
        bool streaming = false;
        bool operator==(const Context&) const = default;
    };
    MessageWidget(const core::Message& message, const Context& context, bool dark,
                  QWidget* parent = nullptr);

    int message_id() const { return m_id; }
    const Context& context() const { return m_context; }
    void set_context(const core::Message& message, const Context& context);
    MarkdownView* view() const { return m_view; }
    // The reasoning above the answer; null when the model has not reasoned.
    ThinkingBlock* thinking_block() const { return m_thinking; }
    // What streamed in: reasoning to the thinking block, answer text to the view.
    void append_streamed(const TokenChunk& chunk);
    void begin_edit();
    void set_note(const QString& note);

signals:
    void regenerateRequested(int id);
    void continueRequested(int id);
    void editSubmitted(int id, const QString& text);
    void branchStepped(int id, int step);  // -1: previous sibling, +1: next

private:
    // Under an answer: its figures, and Continue where it can be continued.
    void set_footer(const core::Message& message, const Context& context);
    ThinkingBlock* make_thinking_block();

    int m_id;
    bool m_user;
    Context m_context;
    QVBoxLayout* m_layout = nullptr;
    QWidget* m_header = nullptr;
    QWidget* m_footer = nullptr;
    MarkdownView* m_view = nullptr;
    ThinkingBlock* m_thinking = nullptr;
    QWidget* m_editor_page = nullptr;
    QPlainTextEdit* m_editor = nullptr;
    QLabel* m_note = nullptr;
};

}  // namespace hearth::ui
