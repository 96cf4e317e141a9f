// Markdown prose in an answer: selectable text exactly as tall as it needs at its width. Words
// wider than the view (a long URL, an identifier) break inside themselves instead of widening
// the message, which would push its buttons off screen; a label cannot wrap that way.
#pragma once

#include <QTextEdit>

namespace hearth::ui {

class ProseView final : public QTextEdit {
    Q_OBJECT

public:
    explicit ProseView(QWidget* parent = nullptr);

    void set_markdown(const QString& markdown);
    const QString& markdown() const { return m_markdown; }

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

private:
    // The height follows the text laid out at the current width: fixed, so no layout ever asks
    // a paragraph to re-wrap its text for a width it does not have.
    void fit_height();

    QString m_markdown;
};

}  // namespace hearth::ui
