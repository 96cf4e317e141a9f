// Where GGUF models are on this machine: Hearth's own models folder, folders the user added,
// and the folders other local-LLM apps keep their downloads in, plus the bundled model.
#pragma once

#include <QString>
#include <QStringList>

#include <filesystem>
#include <vector>

#include "engine/model/model_info.h"

namespace hearth::core {

// One file the catalog found, with what its metadata says or why it cannot be used.
struct ModelEntry {
    ModelInfo info;  // info.path is always set
    QString error;   // why the file cannot be used; empty when it can
};

// Hearth's own models folder, where the user can put GGUF files for the picker to list (it need
// not exist yet).
QString own_models_folder();

// The context length loading `info` gets: `requested` (a conversation's setting) where set,
// otherwise the model's trained length capped as the engine caps it; the memory a model needs
// is only meaningful at this length.
int chosen_context(const ModelInfo& info, int requested);

// Existing folders to search, Hearth's own first, without duplicates.
std::vector<std::filesystem::path> model_folders(const QStringList& user_folders);

// Every .gguf file under `folders` (and the bundled model), each with what its metadata says or
// why it cannot be used. Files are found by content path, so symlinked caches list each once. A
// split model (NAME-00001-of-0000N.gguf, ...) is listed once, as its first part with the size
// of all parts; its later parts are never entries of their own.
std::vector<ModelEntry> scan_models(const std::vector<std::filesystem::path>& folders,
                                    const std::filesystem::path& bundled);

}  // namespace hearth::core
