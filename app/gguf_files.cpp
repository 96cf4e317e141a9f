#include "app/gguf_files.h"

#include "engine/format/split_name.h"

namespace hearth {
namespace {

constexpr int kMaxDepth = 8;  // deep enough for the Hugging Face cache's snapshots

// Parts 2..N of a split model are loaded through the first, never as models of their own.
bool is_later_split_part(const std::filesystem::path& path) {
    const auto split = parse_split_name(path);
    return split && split->number > 1;
}

}  // namespace

void find_gguf_files(const std::filesystem::path& folder,
                     std::vector<std::filesystem::path>& found) {
    std::error_code error;
    auto options = std::filesystem::directory_options::skip_permission_denied;
    for (auto it = std::filesystem::recursive_directory_iterator(folder, options, error);
         !error && it != std::filesystem::recursive_directory_iterator(); it.increment(error)) {
        if (it.depth() > kMaxDepth) {
            it.disable_recursion_pending();
            continue;
        }
        const auto& path = it->path();
        if (path.extension() == ".gguf" && !is_later_split_part(path) &&
            std::filesystem::is_regular_file(path, error)) {
            found.push_back(path);
        }
    }
}

}  // namespace hearth
