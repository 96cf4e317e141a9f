#include "ui/thinking_block.h"

#include <QPlainTextEdit>
#include <QScrollBar>
#include <QToolButton>
#include <QVBoxLayout>

#include "ui/answer_figures.h"

namespace hearth::ui {
namespace {

// Long reasoning scrolls inside the block rather than pushing the answer out of sight.
constexpr int kBodyLines = 12;

}  // namespace

ThinkingBlock::ThinkingBlock(QWidget* parent)
    : QFrame(parent), m_toggle(new QToolButton), m_body(new QPlainTextEdit) {
    setObjectName(QStringLiteral("thinkingBlock"));
    setFrameShape(QFrame::NoFrame);
    m_toggle->setObjectName(QStringLiteral("thinkingToggle"));
    m_toggle->setCheckable(true);
    m_toggle->setAutoRaise(true);
    m_toggle->setFocusPolicy(Qt::StrongFocus);
    m_toggle->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    m_toggle->setAccessibleName(tr("Show or hide the model's reasoning"));
    m_body->setObjectName(QStringLiteral("thinkingText"));
    m_body->setReadOnly(true);
    m_body->setAccessibleName(tr("The model's reasoning"));
    m_body->setForegroundRole(QPalette::PlaceholderText);  // quieter than the answer
    m_body->setMaximumHeight(m_body->fontMetrics().lineSpacing() * kBodyLines);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_toggle, 0, Qt::AlignLeft);
    layout->addWidget(m_body);
    connect(m_toggle, &QToolButton::toggled, this, &ThinkingBlock::set_expanded);
    m_frame.setSingleShot(true);
    m_frame.setInterval(kFrameMilliseconds);
    connect(&m_frame, &QTimer::timeout, this, &ThinkingBlock::flush);
    set_expanded(false);
    show_summary();
}

void ThinkingBlock::set_finished(const QString& reasoning, int tokens, int64_t nanoseconds) {
    m_frame.stop();
    m_pending.clear();
    m_body->setPlainText(reasoning.trimmed());
    m_thinking = false;
    m_tokens = tokens;
    m_nanoseconds = nanoseconds;
    set_expanded(false);
    show_summary();
}

void ThinkingBlock::append(const QString& text, int tokens, int64_t time_ns) {
    if (!m_thinking && m_start_ns < 0) {
        m_thinking = true;
        m_start_ns = time_ns;
        set_expanded(true);
    }
    m_tokens += tokens;
    m_pending += text;
    if (!m_frame.isActive()) m_frame.start();
}

void ThinkingBlock::answer_began(int64_t time_ns) {
    if (!m_thinking) return;
    flush();
    m_thinking = false;
    if (m_start_ns >= 0) m_nanoseconds = time_ns - m_start_ns;
    set_expanded(false);
    show_summary();
}

void ThinkingBlock::set_figures(int tokens, int64_t nanoseconds) {
    flush();
    m_thinking = false;
    m_tokens = tokens;
    m_nanoseconds = nanoseconds;
    show_summary();
}

// Only the end of the text changes: QPlainTextEdit lays out the last paragraph again, not the
// whole reasoning.
void ThinkingBlock::flush() {
    m_frame.stop();
    if (m_pending.isEmpty()) return;
    QScrollBar* bar = m_body->verticalScrollBar();
    const bool following = bar->value() >= bar->maximum() - 4;
    QTextCursor end(m_body->document());
    end.movePosition(QTextCursor::End);
    end.insertText(m_pending);
    m_pending.clear();
    if (following) bar->setValue(bar->maximum());
    if (m_thinking) show_summary();
}

bool ThinkingBlock::expanded() const {
    return m_body->isVisibleTo(this);
}

void ThinkingBlock::set_expanded(bool expanded) {
    m_body->setVisible(expanded);
    const QSignalBlocker quiet(m_toggle);
    m_toggle->setChecked(expanded);
    m_toggle->setArrowType(expanded ? Qt::DownArrow : Qt::RightArrow);
}

QString ThinkingBlock::text() const {
    return m_body->toPlainText() + m_pending;
}

QString ThinkingBlock::summary() const {
    return m_toggle->text();
}

void ThinkingBlock::show_summary() {
    m_toggle->setText(m_thinking ? thinking_progress_text(m_tokens)
                                 : thinking_summary_text(m_tokens, m_nanoseconds));
}

}  // namespace hearth::ui
