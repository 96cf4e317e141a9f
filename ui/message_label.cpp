#include "ui/message_label.h"

#include <QLabel>

namespace hearth::ui {

QLabel* make_message_label(const char* object_name) {
    auto* label = new QLabel;
    label->setObjectName(QString::fromLatin1(object_name));
    label->setWordWrap(true);
    label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    return label;
}

void show_message(QLabel& label, const QString& text, bool problem) {
    label.setText(text);
    // A red that reads on the light and the dark theme alike.
    label.setStyleSheet(problem ? QStringLiteral("color: #c0392b;") : QString());
}

}  // namespace hearth::ui
