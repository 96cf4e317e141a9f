// A push button a test, the screenshot tour and a screen reader can all find: an object name
// and an accessible name besides its text.
#pragma once

#include <QString>

class QPushButton;

namespace hearth::ui {

QPushButton* named_button(const QString& text, const char* name, const QString& accessible);

}  // namespace hearth::ui
