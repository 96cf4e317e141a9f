// An answer rendered as Markdown while it streams. Text arrives in pieces; it is applied at
// most once per frame, and only the last (open) block is re-rendered: finished paragraphs and
// code blocks are widgets that never change again, so a long answer costs the same per frame
// as a short one.
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
    QString text() const { return m_text; }
    int renders() const { return m_renders; }  // block renders so far (for tests and benches)

    static constexpr int kFrameMilliseconds = 16;
    static constexpr size_t kBlocksPerFrame = 6;

private:
    struct Rendered {
        MarkdownBlock::Kind kind;
        QString language;
        QWidget* widget;
    };
    bool render_from_open_block(size_t budget);
    void show_block(size_t index, const MarkdownBlock& block);
    // A closed paragraph keeps a fixed height for the current width, so layouts stop asking it
    // to re-wrap its text: without this every frame re-lays-out every paragraph of the answer.
    void freeze(size_t index);
    void resizeEvent(QResizeEvent* event) override;

    bool m_dark;
    QVBoxLayout* m_layout;
    QString m_text;
    QString m_pending;
    QTimer m_frame;
    qsizetype m_open_start = 0;      // where the first block that may still change begins
    std::vector<Rendered> m_blocks;  // closed blocks, then at most one open block
    size_t m_closed = 0;
    size_t m_frozen = 0;  // blocks [0, m_frozen) have fixed heights
    int m_renders = 0;
    bool m_finishing = false;
};

}  // namespace hearth::ui
