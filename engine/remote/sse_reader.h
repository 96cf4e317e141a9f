// Server-sent events as the HTML standard defines them, read incrementally from whatever pieces
// the network delivers: lines end in CRLF, LF or CR (a CR at the end of one piece and an LF at
// the start of the next are one line end), lines starting with ':' are comments (keep-alives),
// several `data:` lines join with '\n', and an empty line ends an event. Only complete events
// come out, so an event split across any number of reads is seen once, whole.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace hearth::remote {

struct SseEvent {
    std::string type;  // the `event:` field; empty means the default, "message"
    std::string data;
};

class SseReader final {
public:
    // A line longer than this is not an event any server sends; it ends the stream with an
    // error instead of growing the buffer without bound.
    static constexpr size_t kMaxLineBytes = 16u << 20;

    // Reads `bytes` and returns the events they complete. Throws std::length_error for a line
    // over kMaxLineBytes.
    std::vector<SseEvent> feed(std::string_view bytes);
    // Bytes received that do not yet end a line or an event: a stream that stops here was cut.
    bool has_partial_event() const { return !m_line.empty() || m_has_data || !m_type.empty(); }

private:
    void take_line(std::vector<SseEvent>& events);

    std::string m_line;
    bool m_after_cr = false;  // the last byte was a CR: an LF next is part of the same line end
    std::string m_type;
    std::string m_data;
    bool m_has_data = false;
};

}  // namespace hearth::remote
