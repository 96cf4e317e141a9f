// The messages of the conversation's visible branch, scrolled to follow a streaming answer.
#pragma once

#include <QScrollArea>

#include "app/core/conversation.h"

class QVBoxLayout;

namespace hearth::ui {

class MarkdownView;
class MessageWidget;

class ChatView final : public QScrollArea {
    Q_OBJECT

public:
    explicit ChatView(QWidget* parent = nullptr);

    // Rebuilds the view; `streaming_id` is the answer being written (-1: none).
    void show_conversation(const core::Conversation& conversation, int streaming_id);
    // The view of the answer being written, if it is on screen.
    MarkdownView* streaming_view() const { return m_streaming; }
    // The answer being written, if it is on screen: where its streamed chunks go.
    MessageWidget* streaming_widget() const { return m_streaming_widget; }
    MessageWidget* message_widget(int id) const;
    void scroll_to_end_if_following();
    // Forgets the widgets, so the next show_conversation builds them anew (after a theme change).
    void rebuild();

signals:
    void regenerateRequested(int id);
    void continueRequested(int id);
    void editSubmitted(int id, const QString& text);
    void branchStepped(int id, int step);

private:
    QWidget* m_container;
    QVBoxLayout* m_layout;
    std::vector<MessageWidget*> m_widgets;
    int m_conversation = -1;  // whose messages m_widgets show
    MarkdownView* m_streaming = nullptr;
    MessageWidget* m_streaming_widget = nullptr;
    bool m_following = true;
};

}  // namespace hearth::ui
