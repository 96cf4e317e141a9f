// A model's reasoning above its answer: a header that says "Thinking…" while the model reasons
// and "Thought for 3.2 s · 154 tokens" once it has, and the reasoning itself below it. It is
// open while the reasoning streams, closes by itself when the answer begins, and opens and
// closes with a click or the keyboard (Space or Enter on the header). Text arrives in pieces
// and is applied at most once per frame, as the answer's is.
#pragma once

#include <QFrame>
#include <QTimer>

#include <cstdint>

class QPlainTextEdit;
class QToolButton;

namespace hearth::ui {

class ThinkingBlock final : public QFrame {
    Q_OBJECT

public:
    explicit ThinkingBlock(QWidget* parent = nullptr);

    // Reasoning restored from the history: closed, with its figures (0 tokens: none known).
    void set_finished(const QString& reasoning, int tokens, int64_t nanoseconds);
    // Streaming: `tokens` more reasoning tokens, the first ready at `time_ns` (from the
    // request's start); the text is applied at the next frame.
    void append(const QString& text, int tokens, int64_t time_ns);
    // The answer's first token, ready at `time_ns`: the thinking is over; the block closes.
    void answer_began(int64_t time_ns);
    // The engine's exact figures, once the answer is done.
    void set_figures(int tokens, int64_t nanoseconds);

    bool thinking() const { return m_thinking; }
    bool expanded() const;
    void set_expanded(bool expanded);
    QString text() const;
    QString summary() const;
    void flush();  // apply pending text now

    static constexpr int kFrameMilliseconds = 16;

private:
    void show_summary();

    QToolButton* m_toggle;
    QPlainTextEdit* m_body;
    QString m_pending;
    QTimer m_frame;
    bool m_thinking = false;
    int m_tokens = 0;
    int64_t m_start_ns = -1;
    int64_t m_nanoseconds = 0;
};

}  // namespace hearth::ui
