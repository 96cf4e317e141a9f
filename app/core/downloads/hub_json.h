// The Hub's answers read into plain data: the model search (GET /api/models?search=) and a
// repository's tree (GET /api/models/REPO/tree/main) as JSON in the shapes the real Hub sends,
// and the Link header that pages the tree.
#pragma once

#include <QByteArray>
#include <QUrl>

#include <vector>

#include "app/core/downloads/hub_types.h"

namespace hearth::downloads {

// [{"id": "owner/name", "downloads": N, "likes": N, "tags": [...], ...}, ...]
HubResult<std::vector<HubModel>> parse_model_search(const QByteArray& json);

// The largest file a repository's tree may list. The Hub stores files of at most 50 GB; 1 TiB
// leaves room for that to grow, and keeps the sizes the dialog adds up (every part of a split
// model) far from overflowing.
inline constexpr qint64 kMaxHubFileBytes = qint64{1} << 40;

// The most pages of one repository's tree read. The Hub pages a tree by a thousand entries, so
// this is far beyond any model repository; a server whose pages never end is refused here.
inline constexpr int kMaxHubTreePages = 1000;

// [{"type": "file", "path": "x.gguf", "size": N, "oid": "...", "lfs": {"oid": SHA256, "size": N,
// "pointerSize": N}}, {"type": "directory", ...}, ...]: the files only. A file without a path or
// a size, or larger than kMaxHubFileBytes, makes the answer unreadable.
HubResult<std::vector<HubFile>> parse_tree(const QByteArray& json);

// The next page of a paginated answer from its Link header (<URL>; rel="next"), resolved against
// `page`, the URL that answered. An invalid QUrl when there is none, and when it points at
// another server than `page`'s (scheme, host and port): the request for it would carry the
// access token there.
QUrl parse_next_page(const QUrl& page, const QByteArray& link);

}  // namespace hearth::downloads
