#include "ui/markdown_view.h"

#include <QVBoxLayout>

#include <limits>

#include "ui/code_block.h"
#include "ui/list_item_block.h"
#include "ui/prose_view.h"
#include "ui/quote_block.h"

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
    m_closed = 0;
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
}

void MarkdownView::reopen() {
    complete();
    if (m_blocks.empty()) return;
    m_closed = m_blocks.size() - 1;
    m_open_start = m_blocks.back().start;
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
    while (m_blocks.size() > m_closed + count) {
        delete m_blocks.back().widget;
        m_blocks.pop_back();
    }
    for (size_t i = 0; i < count; ++i) {
        MarkdownBlock block = blocks[i];
        block.start += m_open_start;
        show_block(m_closed + i, block);
    }
    size_t newly_closed = 0;
    while (newly_closed < count && blocks[newly_closed].closed) ++newly_closed;
    if (newly_closed == blocks.size()) {
        m_open_start = m_text.size();
    } else {
        m_open_start += blocks[newly_closed].start;
    }
    m_closed += newly_closed;
    return more;
}

void MarkdownView::show_block(size_t index, const MarkdownBlock& block) {
    if (index < m_blocks.size() &&
        (m_blocks[index].kind != block.kind || m_blocks[index].language != block.language)) {
        delete m_blocks[index].widget;
        m_blocks.erase(m_blocks.begin() + static_cast<long>(index));
    }
    if (index >= m_blocks.size()) {
        QWidget* widget = make_widget(block);
        m_layout->insertWidget(static_cast<int>(index), widget);
        m_blocks.insert(m_blocks.begin() + static_cast<long>(index),
                        {block.kind, block.language, widget, block.start, 0, -1});
    }
    Rendered& rendered = m_blocks[index];
    rendered.start = block.start;
    if (block.kind == MarkdownBlock::Kind::ListItem) {
        rendered.indent = block.indent;
        rendered.number = list_number(index, block);
    }
    ++m_renders;
    render(rendered, block);
}

QWidget* MarkdownView::make_widget(const MarkdownBlock& block) {
    switch (block.kind) {
        case MarkdownBlock::Kind::Code:
            return new CodeBlock(block.language, m_dark, this);
        case MarkdownBlock::Kind::Quote:
            return new QuoteBlock(m_dark, this);
        case MarkdownBlock::Kind::ListItem:
            return new ListItemBlock(this);
        case MarkdownBlock::Kind::Prose:
            break;
    }
    return new ProseView(this);
}

void MarkdownView::render(const Rendered& rendered, const MarkdownBlock& block) {
    switch (block.kind) {
        case MarkdownBlock::Kind::Code:
            static_cast<CodeBlock*>(rendered.widget)->set_code(block.text);
            break;
        case MarkdownBlock::Kind::Quote:
            static_cast<QuoteBlock*>(rendered.widget)->set_markdown(block.text);
            break;
        case MarkdownBlock::Kind::ListItem:
            static_cast<ListItemBlock*>(rendered.widget)
                ->set_item(rendered.number, block.indent, block.text);
            break;
        case MarkdownBlock::Kind::Prose:
            static_cast<ProseView*>(rendered.widget)->set_markdown(block.text);
            break;
    }
}

int MarkdownView::list_number(size_t index, const MarkdownBlock& block) const {
    if (block.number < 0) return -1;
    for (size_t before = index; before-- > 0;) {
        const Rendered& item = m_blocks[before];
        if (item.kind != MarkdownBlock::Kind::ListItem || item.indent < block.indent) break;
        if (item.indent > block.indent) continue;  // an item of a list nested in this one
        return item.number >= 0 ? item.number + 1 : block.number;
    }
    return block.number;
}

}  // namespace hearth::ui
