#include "engine/generation/stop_strings.h"

#include <algorithm>
#include <utility>

namespace hearth {

StopStrings::StopStrings(std::vector<std::string> stops) {
    for (auto& stop : stops) {
        if (!stop.empty()) m_stops.push_back(std::move(stop));
    }
}

StopStrings::Output StopStrings::push(std::string_view text) {
    m_held.append(text);
    size_t first = std::string::npos;
    for (const auto& stop : m_stops) first = std::min(first, m_held.find(stop));
    Output output;
    if (first != std::string::npos) {
        output.text = m_held.substr(0, first);
        output.stopped = true;
        m_held.clear();
        return output;
    }
    const size_t keep = held_suffix();
    output.text = m_held.substr(0, m_held.size() - keep);
    m_held.erase(0, m_held.size() - keep);
    return output;
}

std::string StopStrings::flush() {
    return std::exchange(m_held, {});
}

// The longest end of the held text that begins some stop string.
size_t StopStrings::held_suffix() const {
    size_t longest = 0;
    for (const auto& stop : m_stops) {
        const size_t limit = std::min(stop.size() - 1, m_held.size());
        for (size_t length = limit; length > longest; --length) {
            if (std::string_view(m_held).substr(m_held.size() - length) ==
                std::string_view(stop).substr(0, length)) {
                longest = length;
                break;
            }
        }
    }
    return longest;
}

}  // namespace hearth
