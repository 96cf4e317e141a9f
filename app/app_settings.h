// The app's global settings on disk (QSettings, in the user's config directory).
#pragma once

#include "ui/global_settings.h"

namespace hearth {

ui::GlobalSettings load_global_settings();
void save_global_settings(const ui::GlobalSettings& settings);

}  // namespace hearth
