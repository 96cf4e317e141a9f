#include "ui/prompt_edit.h"

#include <QKeyEvent>

namespace hearth::ui {

PromptEdit::PromptEdit(QWidget* parent) : QPlainTextEdit(parent) {
    setObjectName(QStringLiteral("prompt"));
    setAccessibleName(tr("Message"));
    setPlaceholderText(tr("Message Hearth (Enter sends, Shift+Enter for a new line)"));
    setTabChangesFocus(true);
}

void PromptEdit::keyPressEvent(QKeyEvent* event) {
    const bool enter = event->key() == Qt::Key_Return || event->key() == Qt::Key_Enter;
    if (enter && !(event->modifiers() & Qt::ShiftModifier)) {
        emit submitted();
        return;
    }
    QPlainTextEdit::keyPressEvent(event);
}

}  // namespace hearth::ui
