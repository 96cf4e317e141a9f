// The app's global settings on disk (QSettings, in the user's config directory).
#pragma once

#include "app/core/global_settings.h"

namespace hearth::core {

GlobalSettings load_global_settings();
void save_global_settings(const GlobalSettings& settings);

}  // namespace hearth::core
