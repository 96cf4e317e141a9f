// Turns a stream of byte fragments (token pieces) into valid UTF-8 text: a character split
// across tokens is held until it completes, and bytes that can never form a character become
// U+FFFD, so the consumer never sees invalid UTF-8.
#pragma once

#include <string>
#include <string_view>

namespace hearth {

class Utf8Buffer final {
public:
    // Returns the text that is complete after appending `bytes`.
    std::string push(std::string_view bytes);
    // Ends the stream: an unfinished character becomes U+FFFD.
    std::string flush();
    bool empty() const { return m_pending.empty(); }

private:
    std::string m_pending;
};

// True when `text` is entirely valid UTF-8.
bool is_valid_utf8(std::string_view text);

}  // namespace hearth
