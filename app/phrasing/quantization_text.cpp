#include "app/phrasing/quantization_text.h"

#include <cmath>

namespace hearth {

std::string quantization_text(const ModelInfo& info) {
    uint64_t total = 0;
    for (const auto& share : info.weight_types) total += share.parameters;
    std::string mix;
    int shown = 0;
    bool only_the_file_type = true;
    for (const auto& share : info.weight_types) {
        const auto percent = std::llround(100.0 * static_cast<double>(share.parameters) /
                                          static_cast<double>(total));
        if (percent < 1) continue;
        mix += (shown++ == 0 ? "" : ", ") + share.type + " " + std::to_string(percent) + "%";
        only_the_file_type = only_the_file_type && share.type == info.quantization;
    }
    if (shown == 0 || only_the_file_type) return info.quantization;
    return info.quantization + ": " + mix;
}

}  // namespace hearth
