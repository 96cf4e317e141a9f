// The free-memory check before a load, from the same estimate the model picker shows
// (ModelInfo::memory_bytes), so a model that would push the machine into swap is refused with
// the numbers instead of loaded.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>

#include "engine/model/load_error.h"
#include "engine/model/model_info.h"

namespace hearth {

struct MemoryShortfall {
    std::filesystem::path file;
    uint64_t needed = 0;     // bytes the model needs at `context` tokens
    uint64_t available = 0;  // bytes the system can give without swapping
    int context = 0;
};

class InsufficientMemoryError : public LoadError {
public:
    explicit InsufficientMemoryError(const MemoryShortfall& facts);
    const MemoryShortfall& facts() const { return m_facts; }

private:
    MemoryShortfall m_facts;
};

// The shortfall, if `info` at `context` tokens needs more than `available` bytes (nothing when
// the available memory is unknown).
std::optional<MemoryShortfall> memory_shortfall(const ModelInfo& info, int context,
                                                std::optional<uint64_t> available);

// Throws InsufficientMemoryError when the model does not fit the memory free right now.
void check_free_memory(const ModelInfo& info, int context);

}  // namespace hearth
