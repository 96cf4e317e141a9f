// Light, dark, or whatever the desktop uses; and the font size.
#pragma once

#include "app/core/global_settings.h"

class QApplication;
class QAbstractItemView;

namespace hearth::ui {

void apply_theme(core::Theme theme, int font_size);
// Whether the palette now in use is dark (code blocks pick their colours from this).
bool is_dark();
// A list whose keyboard focus shows: a frame in the highlight colour while it has the focus (the
// styles draw none around a list, and the selected row looks the same with or without it).
void show_focus_frame(QAbstractItemView* view);

}  // namespace hearth::ui
