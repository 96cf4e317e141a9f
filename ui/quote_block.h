// A block quote in an answer: its text indented behind a bar, on a faint tint, so that a quote
// reads as one in the light theme and in the dark one.
#pragma once

#include <QFrame>

namespace hearth::ui {

class ProseView;

class QuoteBlock final : public QFrame {
    Q_OBJECT

public:
    QuoteBlock(bool dark, QWidget* parent = nullptr);
    // The quoted Markdown, its ">" markers taken off.
    void set_markdown(const QString& markdown);
    const ProseView& prose() const { return *m_prose; }

private:
    ProseView* m_prose;
};

}  // namespace hearth::ui
