// The file names llama.cpp's gguf-split gives the parts of a split model:
// PREFIX-00001-of-00003.gguf, PREFIX-00002-of-00003.gguf, ... (numbers from 1, five digits).
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>

namespace hearth {

struct SplitName {
    std::filesystem::path prefix;  // the path before "-NNNNN-of-NNNNN.gguf"
    int number = 0;                // 1 for the first part
    int count = 0;
};

// The parts of `path`'s name when it follows the split pattern, nullopt when it does not.
std::optional<SplitName> parse_split_name(const std::filesystem::path& path);

// The path of part `number` (from 1) of `count` next to `prefix`.
std::filesystem::path split_part_path(const std::filesystem::path& prefix, int number, int count);

// Bytes on disk of the model `path` opens: with the first part of a split model, every part found
// next to it together; otherwise the file's own size (0 when it cannot be read).
uintmax_t split_set_size(const std::filesystem::path& path);

}  // namespace hearth
