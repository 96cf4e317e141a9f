#include "engine/model/system_memory.h"

#include <fstream>
#include <string>

namespace hearth {

std::optional<uint64_t> available_memory_bytes() {
    std::ifstream meminfo("/proc/meminfo");
    std::string key;
    uint64_t kibibytes = 0;
    std::string unit;
    while (meminfo >> key >> kibibytes >> unit) {
        if (key == "MemAvailable:") return kibibytes * 1024;
    }
    return std::nullopt;
}

}  // namespace hearth
