#include "ui/named_button.h"

#include <QPushButton>

namespace hearth::ui {

QPushButton* named_button(const QString& text, const char* name, const QString& accessible) {
    auto* button = new QPushButton(text);
    button->setObjectName(QLatin1String(name));
    button->setAccessibleName(accessible);
    return button;
}

}  // namespace hearth::ui
