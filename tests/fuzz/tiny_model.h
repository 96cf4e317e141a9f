// Seeds for gguf_fuzz: a shared model shrunk to a few kilobytes that the engine still loads.
// Fuzzing a megabyte file would spend its mutations on weights the reader never looks at; a
// tiny twin keeps every metadata key, every tensor name, type and the shape relations the
// loader checks, with each dimension divided by a common factor.
#pragma once

#include <cstddef>
#include <vector>

#include "engine/format/gguf_file.h"

namespace hearth::fuzz {

// The file with at most two layers, every model dimension (and the tensors' shapes) divided by
// the largest factor that keeps heads and RoPE pairs whole, metadata arrays cut to 64 items and
// long strings dropped. Tensors whose rows no longer fill their type's blocks become F32.
std::vector<std::byte> tiny_twin(const GgufFile& file);

}  // namespace hearth::fuzz
