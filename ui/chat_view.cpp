#include "ui/chat_view.h"

#include <QScrollBar>
#include <QTimer>
#include <QVBoxLayout>

#include "app/core/continued_answer.h"
#include "ui/markdown_view.h"
#include "ui/message_widget.h"
#include "ui/theme.h"

namespace hearth::ui {

ChatView::ChatView(QWidget* parent)
    : QScrollArea(parent), m_container(new QWidget), m_layout(new QVBoxLayout(m_container)) {
    setObjectName(QStringLiteral("messages"));
    setAccessibleName(tr("Messages"));
    setWidgetResizable(true);
    setWidget(m_container);
    // A stretch factor, not just a spacer: space the messages do not fill (an answer whose
    // Thinking block folded) goes below them, not into a message view that may grow.
    m_layout->addStretch(1);
    // Following the end unless the user scrolled up to read.
    connect(verticalScrollBar(), &QScrollBar::valueChanged, this,
            [this](int value) { m_following = value >= verticalScrollBar()->maximum() - 40; });
    connect(verticalScrollBar(), &QScrollBar::rangeChanged, this, [this](int, int maximum) {
        if (m_following) verticalScrollBar()->setValue(maximum);
    });
}

void ChatView::show_conversation(const core::Conversation& conversation, int streaming_id) {
    const auto thread = conversation.thread();
    // The same messages as on screen (an answer finished, a setting changed): only headers
    // change, and the rendered text stays. Message ids start at 1 in every conversation, so
    // the conversation must be the same one too.
    bool same = conversation.id() == m_conversation && thread.size() == m_widgets.size();
    m_conversation = conversation.id();
    for (size_t i = 0; same && i < thread.size(); ++i)
        same = m_widgets[i]->message_id() == thread[i];
    if (!same) {
        for (auto* widget : m_widgets) delete widget;
        m_widgets.clear();
    }
    m_streaming = nullptr;
    m_streaming_widget = nullptr;
    const bool dark = is_dark();
    for (size_t i = 0; i < thread.size(); ++i) {
        const core::Message& message = *conversation.find(thread[i]);
        const auto siblings = conversation.siblings(message.id);
        MessageWidget::Context context;
        context.branches = static_cast<int>(siblings.size());
        context.branch = static_cast<int>(std::find(siblings.begin(), siblings.end(), message.id) -
                                          siblings.begin()) +
                         1;
        context.streaming = streaming_id >= 0;
        context.can_regenerate = streaming_id < 0 && i + 1 == thread.size() &&
                                 message.role == QLatin1String("assistant");
        context.can_continue = context.can_regenerate && core::can_continue(message);
        if (same) {
            MessageWidget* widget = m_widgets[i];
            if (widget->context().streaming && !context.streaming)
                widget->view()->finish_streaming();
            // An answer continued: what streams now joins its last block.
            if (message.id == streaming_id && !widget->context().streaming)
                widget->view()->reopen();
            if (!(widget->context() == context)) widget->set_context(message, context);
            if (message.id == streaming_id) {
                m_streaming = widget->view();
                m_streaming_widget = widget;
            }
            continue;
        }
        auto* widget = new MessageWidget(message, context, dark, m_container);
        m_layout->insertWidget(m_layout->count() - 1, widget);
        m_widgets.push_back(widget);
        if (message.id == streaming_id) {
            m_streaming = widget->view();
            m_streaming_widget = widget;
        }
        connect(widget, &MessageWidget::regenerateRequested, this, &ChatView::regenerateRequested);
        connect(widget, &MessageWidget::continueRequested, this, &ChatView::continueRequested);
        connect(widget, &MessageWidget::editSubmitted, this, &ChatView::editSubmitted);
        connect(widget, &MessageWidget::branchStepped, this, &ChatView::branchStepped);
    }
    if (!same) {
        m_following = true;
        scroll_to_end_if_following();
    }
}

void ChatView::rebuild() {
    for (auto* widget : m_widgets) delete widget;
    m_widgets.clear();
    m_streaming = nullptr;
    m_streaming_widget = nullptr;
}

MessageWidget* ChatView::message_widget(int id) const {
    for (auto* widget : m_widgets) {
        if (widget->message_id() == id) return widget;
    }
    return nullptr;
}

void ChatView::scroll_to_end_if_following() {
    if (m_following) verticalScrollBar()->setValue(verticalScrollBar()->maximum());
}

}  // namespace hearth::ui
