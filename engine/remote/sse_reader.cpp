#include "engine/remote/sse_reader.h"

#include <stdexcept>

namespace hearth::remote {

std::vector<SseEvent> SseReader::feed(std::string_view bytes) {
    std::vector<SseEvent> events;
    for (const char c : bytes) {
        if (c == '\n' && m_after_cr) {
            m_after_cr = false;
            continue;
        }
        m_after_cr = c == '\r';
        if (c == '\r' || c == '\n') {
            take_line(events);
            continue;
        }
        if (m_line.size() >= kMaxLineBytes) {
            throw std::length_error("an event line is longer than " +
                                    std::to_string(kMaxLineBytes >> 20) + " MiB");
        }
        m_line += c;
    }
    return events;
}

void SseReader::take_line(std::vector<SseEvent>& events) {
    std::string line;
    line.swap(m_line);
    if (line.empty()) {
        // Only an event with data is dispatched (the standard drops the rest).
        if (m_has_data) events.push_back({std::move(m_type), std::move(m_data)});
        m_type.clear();
        m_data.clear();
        m_has_data = false;
        return;
    }
    if (line.front() == ':') return;  // a comment: keep-alive
    const size_t colon = line.find(':');
    const std::string_view field = std::string_view(line).substr(0, colon);
    std::string_view value;
    if (colon != std::string::npos) {
        value = std::string_view(line).substr(colon + 1);
        if (!value.empty() && value.front() == ' ') value.remove_prefix(1);
    }
    if (field == "data") {
        if (m_has_data) m_data += '\n';
        m_data += value;
        m_has_data = true;
    } else if (field == "event") {
        m_type = value;
    }
    // `id` and `retry` matter to reconnecting browsers; a completion stream is never resumed.
}

}  // namespace hearth::remote
