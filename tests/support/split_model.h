// Split models made from a shared model the way llama.cpp's gguf-split makes them: the first
// part holds the metadata, every part holds split.no, split.count and split.tensors.count and
// some of the tensors, named PREFIX-0000K-of-0000N.gguf.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "engine/format/gguf_file.h"

namespace hearth::test {

// Writes part `number` (from 1) of `count` next to `prefix`, holding the tensors `names` of
// `source`, and returns its path.
std::filesystem::path write_split_part(const GgufFile& source, const std::filesystem::path& prefix,
                                       int number, int count,
                                       const std::vector<std::string>& names);

// The names of `source`'s tensors dealt into `count` runs of about equal length, in file order.
std::vector<std::vector<std::string>> split_tensor_names(const GgufFile& source, int count);

// Writes all `count` parts of `source` next to `prefix` and returns their paths, first first.
std::vector<std::filesystem::path> write_split_model(const GgufFile& source,
                                                     const std::filesystem::path& prefix,
                                                     int count);

}  // namespace hearth::test
