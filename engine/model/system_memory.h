// How much memory the system can give a new model without swapping.
#pragma once

#include <cstdint>
#include <optional>

namespace hearth {

// MemAvailable from /proc/meminfo; nullopt where it cannot be read.
std::optional<uint64_t> available_memory_bytes();

}  // namespace hearth
