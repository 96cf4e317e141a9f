#include "engine/runtime/backend_preference.h"

#include <algorithm>
#include <charconv>
#include <stdexcept>
#include <thread>

namespace hearth {

int BackendPreference::cpu_threads() const {
    if (threads > 0) return threads;
    const int cores = static_cast<int>(std::thread::hardware_concurrency());
    return std::max(1, cores - spare_threads);
}

BackendPreference parse_backend_preference(std::string_view text) {
    using Kind = BackendPreference::Kind;
    if (text == "auto") return {.kind = Kind::Automatic};
    if (text == "cpu") return {.kind = Kind::Cpu};
    if (text == "reference") return {.kind = Kind::Reference};
    if (text == "vulkan") return {.kind = Kind::Vulkan};
    constexpr std::string_view prefix = "vulkan:";
    if (text.starts_with(prefix)) {
        const std::string_view digits = text.substr(prefix.size());
        uint32_t index = 0;
        const auto [end, error] =
            std::from_chars(digits.data(), digits.data() + digits.size(), index);
        if (!digits.empty() && error == std::errc() && end == digits.data() + digits.size())
            return {.kind = Kind::Vulkan, .device = index};
    }
    throw std::invalid_argument("unknown backend '" + std::string(text) +
                                "' (choose auto, cpu, vulkan, vulkan:N or reference)");
}

BackendPreference backend_preference_from_setting(std::string_view text) {
    try {
        return parse_backend_preference(text);
    } catch (const std::invalid_argument&) {
        return {.kind = BackendPreference::Kind::Cpu, .unknown_setting = std::string(text)};
    }
}

std::string to_string(const BackendPreference& preference) {
    switch (preference.kind) {
        case BackendPreference::Kind::Automatic:
            return "auto";
        case BackendPreference::Kind::Cpu:
            return "cpu";
        case BackendPreference::Kind::Reference:
            return "reference";
        case BackendPreference::Kind::Vulkan:
            return preference.device ? "vulkan:" + std::to_string(*preference.device) : "vulkan";
    }
    return "auto";
}

}  // namespace hearth
