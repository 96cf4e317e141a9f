// Whether a folder's disk has room for what a download still has to write, checked before it
// starts.
#pragma once

#include <QString>

#include <optional>

#include "app/core/downloads/hub_types.h"

namespace hearth::downloads {

// nullopt when `folder` (or the nearest existing folder above it) has `bytes` free; otherwise a
// Disk error saying how much is needed and how much is free.
std::optional<HubError> check_disk_space(const QString& folder, qint64 bytes);

// "1.4 GiB": how the errors write sizes (binary units, as the model picker).
QString size_text(qint64 bytes);

}  // namespace hearth::downloads
