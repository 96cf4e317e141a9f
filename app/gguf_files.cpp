#include "app/gguf_files.h"

namespace hearth {
namespace {

constexpr int kMaxDepth = 8;  // deep enough for the Hugging Face cache's snapshots

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
        if (path.extension() == ".gguf" && std::filesystem::is_regular_file(path, error)) {
            found.push_back(path);
        }
    }
}

}  // namespace hearth
