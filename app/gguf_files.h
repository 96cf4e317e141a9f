// Finding GGUF files on disk without Qt: the model catalog (hearth_core) and the headless server
// (app/server, which lists the catalog's folder) both walk folders this way.
#pragma once

#include <filesystem>
#include <vector>

namespace hearth {

// Appends every regular .gguf file under `folder` to `found`, in directory order, descending
// at most a few levels (enough for the Hugging Face cache's snapshots); unreadable folders are
// skipped, a missing one adds nothing. Of a split model (NAME-00001-of-0000N.gguf, ...) only the
// first part is added: it loads the others.
void find_gguf_files(const std::filesystem::path& folder,
                     std::vector<std::filesystem::path>& found);

}  // namespace hearth
