// A fenced code block in an answer: its language, a copy button and highlighted text on a
// background of its own.
#pragma once

#include <QFrame>

class QLabel;
class QPlainTextEdit;

namespace hearth::ui {

class CodeBlock final : public QFrame {
    Q_OBJECT

public:
    CodeBlock(const QString& language, bool dark, QWidget* parent = nullptr);
    void set_code(const QString& code);
    QString code() const;
    QString language() const { return m_language; }

private:
    void fit_height();

    QString m_language;
    QPlainTextEdit* m_text = nullptr;
};

}  // namespace hearth::ui
