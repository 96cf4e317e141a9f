#include "ui/message_widget.h"

#include <QApplication>
#include <QClipboard>
#include <QHBoxLayout>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QVBoxLayout>

#include "ui/answer_figures.h"
#include "ui/markdown_view.h"
#include "ui/thinking_block.h"

namespace hearth::ui {
namespace {

QPushButton* small_button(const QString& text, const QString& name, const QString& accessible) {
    auto* button = new QPushButton(text);
    button->setObjectName(name);
    button->setAccessibleName(accessible);
    button->setFlat(true);
    return button;
}

}  // namespace

MessageWidget::MessageWidget(const core::Message& message, const Context& context, bool dark,
                             QWidget* parent)
    : QFrame(parent), m_id(message.id), m_user(message.role == QLatin1String("user")) {
    setObjectName(m_user ? QStringLiteral("userMessage") : QStringLiteral("assistantMessage"));
    setFrameShape(QFrame::StyledPanel);
    setAccessibleName(m_user ? tr("Your message") : tr("Answer"));

    m_view = new MarkdownView(dark);
    m_view->set_text(message.text, !context.streaming);
    m_editor_page = new QWidget;
    m_editor = new QPlainTextEdit;
    m_editor->setObjectName(QStringLiteral("messageEditor"));
    m_editor->setAccessibleName(tr("Edited message"));
    auto* send = new QPushButton(tr("Send"));
    send->setObjectName(QStringLiteral("sendEdit"));
    auto* cancel = new QPushButton(tr("Cancel"));
    auto* editor_buttons = new QHBoxLayout;
    editor_buttons->addStretch();
    editor_buttons->addWidget(cancel);
    editor_buttons->addWidget(send);
    auto* editor_layout = new QVBoxLayout(m_editor_page);
    editor_layout->setContentsMargins(0, 0, 0, 0);
    editor_layout->addWidget(m_editor);
    editor_layout->addLayout(editor_buttons);
    // Shown instead of the text while editing; a hidden page takes no room.
    m_editor_page->hide();
    connect(cancel, &QPushButton::clicked, this, [this] {
        m_editor_page->hide();
        m_view->show();
    });
    connect(send, &QPushButton::clicked, this, [this] {
        const QString text = m_editor->toPlainText().trimmed();
        if (!text.isEmpty()) emit editSubmitted(m_id, text);
    });

    m_layout = new QVBoxLayout(this);
    m_layout->addWidget(m_view);
    m_layout->addWidget(m_editor_page);
    if (!message.reasoning.isEmpty()) {
        const auto stats = message.generation ? message.generation->stats : GenerationStats{};
        make_thinking_block()->set_finished(message.reasoning, stats.reasoning_tokens,
                                            stats.reasoning_ns);
    }
    set_context(message, context);
}

ThinkingBlock* MessageWidget::make_thinking_block() {
    if (m_thinking == nullptr) {
        m_thinking = new ThinkingBlock;
        m_layout->insertWidget(m_layout->indexOf(m_view), m_thinking);
    }
    return m_thinking;
}

void MessageWidget::append_streamed(const TokenChunk& chunk) {
    const int64_t first_ns = chunk.token_times_ns.empty() ? 0 : chunk.token_times_ns.front();
    if (!chunk.reasoning.empty() || chunk.reasoning_tokens > 0) {
        make_thinking_block()->append(QString::fromStdString(chunk.reasoning),
                                      chunk.reasoning_tokens, first_ns);
    }
    if (chunk.text.empty()) return;
    if (m_thinking != nullptr) m_thinking->answer_began(first_ns);
    m_view->append(QString::fromStdString(chunk.text));
}

// The header (who, branch switcher, actions) depends on the message's place in the thread and
// on whether an answer is streaming; it is rebuilt alone, leaving the rendered text as it is.
void MessageWidget::set_context(const core::Message& message, const Context& context) {
    m_context = context;
    delete m_header;
    m_header = new QWidget;
    auto* header = new QHBoxLayout(m_header);
    header->setContentsMargins(0, 0, 0, 0);
    auto* role = new QLabel(m_user ? tr("You") : tr("Hearth"));
    QFont bold = role->font();
    bold.setBold(true);
    role->setFont(bold);
    m_note = new QLabel;
    m_note->setObjectName(QStringLiteral("messageNote"));
    if (!message.finished && !context.streaming) m_note->setText(tr("(stopped before the end)"));
    header->addWidget(role);
    header->addWidget(m_note);
    header->addStretch();
    if (context.branches > 1) {
        auto* previous =
            small_button(QStringLiteral("‹"), "previousBranch", tr("Previous version"));
        auto* next = small_button(QStringLiteral("›"), "nextBranch", tr("Next version"));
        auto* place = new QLabel(QStringLiteral("%1/%2").arg(context.branch).arg(context.branches));
        place->setObjectName(QStringLiteral("branchPlace"));
        previous->setEnabled(context.branch > 1 && !context.streaming);
        next->setEnabled(context.branch < context.branches && !context.streaming);
        header->addWidget(previous);
        header->addWidget(place);
        header->addWidget(next);
        connect(previous, &QPushButton::clicked, this, [this] { emit branchStepped(m_id, -1); });
        connect(next, &QPushButton::clicked, this, [this] { emit branchStepped(m_id, +1); });
    }
    auto* copy = small_button(tr("Copy"), "copyMessage", tr("Copy message"));
    header->addWidget(copy);
    connect(copy, &QPushButton::clicked, this,
            [this] { QApplication::clipboard()->setText(m_view->text()); });
    if (m_user && !context.streaming) {
        auto* edit = small_button(tr("Edit"), "editMessage", tr("Edit and resend"));
        header->addWidget(edit);
        connect(edit, &QPushButton::clicked, this, &MessageWidget::begin_edit);
    }
    if (context.can_regenerate) {
        auto* again = small_button(tr("Regenerate"), "regenerate", tr("Regenerate the answer"));
        header->addWidget(again);
        connect(again, &QPushButton::clicked, this, [this] { emit regenerateRequested(m_id); });
    }
    m_layout->insertWidget(0, m_header);
    // The answer is done: the engine's own reasoning figures replace those counted on the way.
    if (m_thinking != nullptr && !context.streaming && message.generation) {
        m_thinking->set_figures(message.generation->stats.reasoning_tokens,
                                message.generation->stats.reasoning_ns);
    }
    set_footer(message, context);
}

void MessageWidget::set_footer(const core::Message& message, const Context& context) {
    if (m_footer != nullptr) {
        // Continue rebuilds the footer from inside its own button's click: the old one goes
        // once the click is over.
        m_footer->setParent(nullptr);
        m_footer->deleteLater();
        m_footer = nullptr;
    }
    if (m_user || context.streaming || !message.generation) return;
    m_footer = new QWidget;
    auto* footer = new QHBoxLayout(m_footer);
    footer->setContentsMargins(0, 0, 0, 0);
    auto* figures = new QLabel(answer_figures_text(*message.generation));
    figures->setObjectName(QStringLiteral("answerFigures"));
    figures->setWordWrap(true);
    figures->setTextInteractionFlags(Qt::TextSelectableByMouse);
    figures->setForegroundRole(QPalette::PlaceholderText);  // quieter than the answer
    footer->addWidget(figures, 1);
    if (context.can_continue) {
        auto* more = small_button(tr("Continue"), "continueAnswer", tr("Continue the answer"));
        more->setFlat(false);
        footer->addWidget(more, 0, Qt::AlignTop);
        connect(more, &QPushButton::clicked, this, [this] { emit continueRequested(m_id); });
    }
    m_layout->addWidget(m_footer);
}

void MessageWidget::begin_edit() {
    m_editor->setPlainText(m_view->text());
    m_view->hide();
    m_editor_page->show();
    m_editor->setFocus();
}

void MessageWidget::set_note(const QString& note) {
    m_note->setText(note);
}

}  // namespace hearth::ui
