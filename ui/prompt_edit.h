// The message box: Enter sends, Shift+Enter starts a new line.
#pragma once

#include <QPlainTextEdit>

namespace hearth::ui {

class PromptEdit final : public QPlainTextEdit {
    Q_OBJECT

public:
    explicit PromptEdit(QWidget* parent = nullptr);

signals:
    void submitted();

protected:
    void keyPressEvent(QKeyEvent* event) override;
};

}  // namespace hearth::ui
