#include "ui/markdown_view.h"

#include <QLabel>

#include <QVBoxLayout>
#include <limits>

#include "ui/code_block.h"

namespace hearth::ui {

MarkdownView::MarkdownView(bool dark, QWidget* parent)
    : QWidget(parent), m_dark(dark), m_layout(new QVBoxLayout(this)) {
    m_layout->setContentsMargins(0, 0, 0, 0);
    m_layout->setSpacing(6);
    m_frame.setSingleShot(true);
    m_frame.setInterval(kFrameMilliseconds);
    connect(&m_frame, &QTimer::timeout, this, &MarkdownView::flush);
}

void MarkdownView::set_text(const QString& markdown, bool complete) {
    m_pending.clear();
    for (auto& block : m_blocks) delete block.widget;
    m_blocks.clear();
    m_closed = m_frozen = 0;
    m_open_start = 0;
    m_text = markdown;
    if (complete) {
        this->complete();
    } else {
        render_from_open_block(std::numeric_limits<size_t>::max());
    }
}

void MarkdownView::complete() {
    m_finishing = false;
    m_frame.stop();
    m_text += m_pending;
    m_pending.clear();
    while (render_from_open_block(std::numeric_limits<size_t>::max())) {
    }
    m_closed = m_blocks.size();
    m_open_start = m_text.size();
    while (m_frozen < m_closed) freeze(m_frozen++);
}

void MarkdownView::freeze(size_t index) {
    auto* label = qobject_cast<QLabel*>(m_blocks[index].widget);
    if (label == nullptr) return;  // code blocks size themselves
    QSizePolicy policy = label->sizePolicy();
    policy.setHeightForWidth(false);
    label->setSizePolicy(policy);
    label->setFixedHeight(label->heightForWidth(std::max(width(), 100)));
}

void MarkdownView::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    for (size_t i = 0; i < m_frozen; ++i) freeze(i);
}

void MarkdownView::append(const QString& text) {
    if (text.isEmpty()) return;
    m_pending += text;
    if (!m_frame.isActive()) m_frame.start();
}

void MarkdownView::flush() {
    m_frame.stop();
    m_text += m_pending;
    m_pending.clear();
    if (render_from_open_block(kBlocksPerFrame)) {
        m_frame.start();
    } else if (m_finishing) {
        complete();
    }
}

void MarkdownView::finish_streaming() {
    m_finishing = true;
    flush();
}

// Renders the blocks from the first one that may still change, at most `budget` of them: a
// burst of text (a fast model, a long paste) then takes a few frames instead of one long stall.
// Returns whether blocks are left for the next frame.
bool MarkdownView::render_from_open_block(size_t budget) {
    if (m_open_start >= m_text.size() && m_blocks.size() == m_closed) return false;
    const auto blocks = split_markdown(m_text.mid(m_open_start));
    const size_t count = std::min(blocks.size(), budget);
    const bool more = count < blocks.size();
    // Widgets past the closed ones belong to the open block, which is rebuilt from here.
    m_frozen = std::min(m_frozen, m_closed);
    while (m_blocks.size() > m_closed + count) {
        delete m_blocks.back().widget;
        m_blocks.pop_back();
    }
    for (size_t i = 0; i < count; ++i) show_block(m_closed + i, blocks[i]);
    size_t newly_closed = 0;
    while (newly_closed < count && blocks[newly_closed].closed) ++newly_closed;
    if (newly_closed == blocks.size()) {
        m_open_start = m_text.size();
    } else {
        m_open_start += blocks[newly_closed].start;
    }
    m_closed += newly_closed;
    while (m_frozen < m_closed) freeze(m_frozen++);
    return more;
}

void MarkdownView::show_block(size_t index, const MarkdownBlock& block) {
    if (index < m_blocks.size() &&
        (m_blocks[index].kind != block.kind || m_blocks[index].language != block.language)) {
        delete m_blocks[index].widget;
        m_blocks.erase(m_blocks.begin() + static_cast<long>(index));
    }
    if (index >= m_blocks.size()) {
        QWidget* widget;
        if (block.kind == MarkdownBlock::Kind::Code) {
            widget = new CodeBlock(block.language, m_dark, this);
        } else {
            auto* label = new QLabel(this);
            label->setObjectName(QStringLiteral("prose"));
            label->setTextFormat(Qt::MarkdownText);
            label->setWordWrap(true);
            label->setTextInteractionFlags(Qt::TextSelectableByMouse |
                                           Qt::TextSelectableByKeyboard);
            label->setOpenExternalLinks(false);  // nothing leaves the machine unasked
            widget = label;
        }
        m_layout->insertWidget(static_cast<int>(index), widget);
        m_blocks.insert(m_blocks.begin() + static_cast<long>(index),
                        {block.kind, block.language, widget});
    }
    ++m_renders;
    if (block.kind == MarkdownBlock::Kind::Code) {
        static_cast<CodeBlock*>(m_blocks[index].widget)->set_code(block.text);
    } else {
        static_cast<QLabel*>(m_blocks[index].widget)->setText(block.text);
    }
}

}  // namespace hearth::ui
