// The Hub's JSON answers read into plain data: the model search (GET /api/models?search=) and a
// repository's tree (GET /api/models/REPO/tree/main), in the shapes the real Hub sends.
#pragma once

#include <QByteArray>

#include <vector>

#include "app/core/downloads/hub_types.h"

namespace hearth::downloads {

// [{"id": "owner/name", "downloads": N, "likes": N, "tags": [...], ...}, ...]
HubResult<std::vector<HubModel>> parse_model_search(const QByteArray& json);

// [{"type": "file", "path": "x.gguf", "size": N, "oid": "...", "lfs": {"oid": SHA256, "size": N,
// "pointerSize": N}}, {"type": "directory", ...}, ...]: the files only.
HubResult<std::vector<HubFile>> parse_tree(const QByteArray& json);

}  // namespace hearth::downloads
