#include "app/core/model_catalog.h"

#include <QDir>
#include <QStandardPaths>

#include <set>

#include "app/gguf_files.h"
#include "engine/compute/backend_factory.h"
#include "engine/format/split_name.h"

namespace hearth::core {

QString own_models_folder() {
    return QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) +
           QStringLiteral("/models");
}

int chosen_context(const ModelInfo& info, int requested) {
    if (requested > 0) return requested;
    return std::min(std::max(info.context_length, 1), kDefaultContextCap);
}

std::vector<std::filesystem::path> model_folders(const QStringList& user_folders) {
    const std::filesystem::path home = QDir::homePath().toStdString();
    std::vector<std::filesystem::path> candidates{own_models_folder().toStdString()};
    for (const auto& folder : user_folders) candidates.emplace_back(folder.toStdString());
    for (const char* other :
         {".lmstudio/models", ".cache/lm-studio/models", ".local/share/nomic.ai/GPT4All",
          "jan/models", ".cache/huggingface/hub"}) {
        candidates.push_back(home / other);
    }
    std::vector<std::filesystem::path> folders;
    std::set<std::filesystem::path> seen;
    for (const auto& folder : candidates) {
        std::error_code error;
        if (!std::filesystem::is_directory(folder, error)) continue;
        const auto canonical = std::filesystem::weakly_canonical(folder, error);
        if (seen.insert(canonical).second) folders.push_back(folder);
    }
    return folders;
}

std::vector<ModelEntry> scan_models(const std::vector<std::filesystem::path>& folders,
                                    const std::filesystem::path& bundled) {
    std::vector<std::filesystem::path> files;
    if (!bundled.empty()) files.push_back(bundled);
    for (const auto& folder : folders) find_gguf_files(folder, files);
    std::vector<ModelEntry> entries;
    std::set<std::filesystem::path> seen;
    for (const auto& file : files) {
        std::error_code error;
        const auto canonical = std::filesystem::canonical(file, error);
        if (error || !seen.insert(canonical).second) continue;
        ModelEntry entry;
        entry.info.path = file;
        try {
            entry.info = read_model_info(file);
        } catch (const std::exception& problem) {
            entry.error = QString::fromStdString(problem.what());
            // Sorts by size; a split model's is all its parts'.
            entry.info.file_bytes = split_set_size(file);
        }
        entries.push_back(std::move(entry));
    }
    return entries;
}

}  // namespace hearth::core
