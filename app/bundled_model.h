// Where the model that ships with Hearth lives, installed or in a build tree.
#pragma once

#include <filesystem>
#include <optional>

namespace hearth {

// The bundled default model (stories260K.gguf); throws std::runtime_error listing the places
// it looked when it is missing.
std::filesystem::path bundled_model_path();
// The same, or nothing when it is missing (the GPU self-test then has nothing to check with).
std::optional<std::filesystem::path> find_bundled_model();

}  // namespace hearth
