// An answer rendered as Markdown while it streams. Text arrives in pieces; it is applied at
// most once per frame, and only the last (open) block is re-rendered: finished paragraphs, list
// items, quotes and code blocks are widgets that never change again, and each is as tall as its
// text at the current width, so a long answer costs the same per frame as a short one.
#pragma once

#include <QTimer>
#include <QWidget>

#include <vector>

#include "ui/markdown_blocks.h"

class QVBoxLayout;

namespace hearth::ui {

class MarkdownView final : public QWidget {
    Q_OBJECT

public:
    explicit MarkdownView(bool dark, QWidget* parent = nullptr);

    // Everything at once, rendered now; `complete` when no more text will come.
    void set_text(const QString& markdown, bool complete = true);
    void append(const QString& text);  // applied at the next frame
    void flush();                      // apply what is pending now
    void complete();                   // no more text will come: render the rest now
    // No more text will come: the rest is rendered over the next frames, as while streaming.
    void finish_streaming();
    // More text will come after what is shown (an answer continued): its last block opens again,
    // so the words that follow join it.
    void reopen();
    QString text() const { return m_text; }
    int renders() const { return m_renders; }  // block renders so far (for tests and benches)

    static constexpr int kFrameMilliseconds = 16;
    static constexpr size_t kBlocksPerFrame = 6;

private:
    struct Rendered {
        MarkdownBlock::Kind kind;
        QString language;
        QWidget* widget;
        qsizetype start;  // where the block begins in m_text
        int indent;       // list items: as MarkdownBlock::indent
        int number;       // list items: the number shown; -1: a bullet
    };
    bool render_from_open_block(size_t budget);
    void show_block(size_t index, const MarkdownBlock& block);
    QWidget* make_widget(const MarkdownBlock& block);
    void render(const Rendered& rendered, const MarkdownBlock& block);
    // A numbered item goes on from the item before it at its depth, whatever number it was
    // written with (Markdown's rule: "1. 1. 1." counts 1, 2, 3); the first item keeps its own.
    int list_number(size_t index, const MarkdownBlock& block) const;

    bool m_dark;
    QVBoxLayout* m_layout;
    QString m_text;
    QString m_pending;
    QTimer m_frame;
    qsizetype m_open_start = 0;      // where the first block that may still change begins
    std::vector<Rendered> m_blocks;  // closed blocks, then at most one open block
    size_t m_closed = 0;
    int m_renders = 0;
    bool m_finishing = false;
};

}  // namespace hearth::ui
