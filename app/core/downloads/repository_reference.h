// What a user types to name a model on the Hub: "owner/name", "owner/name:file.gguf", or a
// huggingface.co address of the repository or of one of its files.
#pragma once

#include <QString>

#include <optional>

namespace hearth::downloads {

struct RepositoryReference {
    QString repository;  // "owner/name"
    QString file;        // a file in it, or empty
};

// nullopt when `text` names no repository.
std::optional<RepositoryReference> parse_repository_reference(const QString& text);

}  // namespace hearth::downloads
