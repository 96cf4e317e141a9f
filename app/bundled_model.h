// Where the model that ships with Hearth lives, installed or in a build tree.
#pragma once

#include <filesystem>

namespace hearth {

// The bundled default model (stories260K.gguf); throws std::runtime_error listing the places
// it looked when it is missing.
std::filesystem::path bundled_model_path();

}  // namespace hearth
