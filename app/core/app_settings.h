// The app's global settings on disk (QSettings, in the user's config directory).
#pragma once

#include "app/core/global_settings.h"

namespace hearth::core {

GlobalSettings load_global_settings();
void save_global_settings(const GlobalSettings& settings);

// A server API key a client can send in an Authorization header: visible ASCII, no spaces
// (empty: no key).
bool valid_api_key(const QString& key);

}  // namespace hearth::core
