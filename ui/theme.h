// Light, dark, or whatever the desktop uses; and the font size.
#pragma once

#include "app/core/global_settings.h"

class QApplication;

namespace hearth::ui {

void apply_theme(core::Theme theme, int font_size);
// Whether the palette now in use is dark (code blocks pick their colours from this).
bool is_dark();

}  // namespace hearth::ui
