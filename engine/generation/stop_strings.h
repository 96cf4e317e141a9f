// User stop strings over streamed text: text that might be the beginning of a stop string is
// held back until the next pieces decide it, so a stop string never reaches the user, even when
// it arrives split across tokens.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace hearth {

class StopStrings final {
public:
    explicit StopStrings(std::vector<std::string> stops);

    struct Output {
        std::string text;      // safe to show now
        bool stopped = false;  // a stop string completed; `text` is what came before it
    };
    Output push(std::string_view text);
    // The stream ended without a stop string: everything held back is released.
    std::string flush();
    bool holding() const { return !m_held.empty(); }

private:
    size_t held_suffix() const;

    std::vector<std::string> m_stops;
    std::string m_held;
};

}  // namespace hearth
