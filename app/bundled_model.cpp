#include "app/bundled_model.h"

#include <stdexcept>
#include <string>
#include <vector>

namespace hearth {
namespace {

constexpr const char* kBundledModel = "stories260K.gguf";

std::filesystem::path executable_directory() {
    std::error_code error;
    const auto self = std::filesystem::read_symlink("/proc/self/exe", error);
    return error ? std::filesystem::path{} : self.parent_path();
}

std::vector<std::filesystem::path> bundled_model_candidates() {
    std::vector<std::filesystem::path> candidates;
    if (const auto directory = executable_directory(); !directory.empty()) {
        candidates.push_back(directory / "../share/hearth/models" / kBundledModel);
    }
    candidates.push_back(std::filesystem::path(HEARTH_INSTALLED_MODEL_DIR) / kBundledModel);
    candidates.push_back(std::filesystem::path(HEARTH_BUILD_MODEL_DIR) / kBundledModel);
    return candidates;
}

}  // namespace

std::optional<std::filesystem::path> find_bundled_model() {
    for (const auto& candidate : bundled_model_candidates()) {
        if (std::filesystem::is_regular_file(candidate)) return candidate.lexically_normal();
    }
    return std::nullopt;
}

std::filesystem::path bundled_model_path() {
    if (auto found = find_bundled_model()) return *found;
    std::string tried;
    for (const auto& candidate : bundled_model_candidates()) tried += "\n  " + candidate.string();
    throw std::runtime_error("the bundled model is missing; looked in:" + tried);
}

}  // namespace hearth
