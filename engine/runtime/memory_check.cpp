#include "engine/runtime/memory_check.h"

#include <string>

#include "engine/model/system_memory.h"

namespace hearth {

InsufficientMemoryError::InsufficientMemoryError(const MemoryShortfall& facts)
    : LoadError(facts.file.string() +
                ": not enough free memory: " + std::to_string(facts.needed >> 20) +
                " MiB needed at " + std::to_string(facts.context) + " tokens of context, " +
                std::to_string(facts.available >> 20) + " MiB free"),
      m_facts(facts) {}

std::optional<MemoryShortfall> memory_shortfall(const ModelInfo& info, int context,
                                                std::optional<uint64_t> available) {
    const uint64_t needed = info.memory_bytes(context);
    if (!available || needed <= *available) return std::nullopt;
    return MemoryShortfall{
        .file = info.path, .needed = needed, .available = *available, .context = context};
}

void check_free_memory(const ModelInfo& info, int context) {
    if (const auto shortfall = memory_shortfall(info, context, available_memory_bytes()))
        throw InsufficientMemoryError(*shortfall);
}

}  // namespace hearth
