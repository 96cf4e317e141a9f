// A whole file as a string, for the command line's template, messages and schema files.
#pragma once

#include <filesystem>
#include <string>

namespace hearth {

// Throws std::runtime_error naming `path` when it cannot be read.
std::string read_file(const std::filesystem::path& path);

}  // namespace hearth
