// Cuts the inside of one tag ({{ ... }} or {% ... %}) into tokens: names, string and number
// literals (Python's syntax and escapes) and operators.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "engine/text/jinja/value.h"

namespace hearth::jinja {

struct Token {
    enum class Kind { Name, String, Integer, Float, Operator, End };
    Kind kind = Kind::End;
    std::string text;
    Value value;
};

// Ends with one End token. Throws RenderError naming `line` for a malformed literal or an
// unexpected character.
std::vector<Token> tokenize(std::string_view source, int line);

}  // namespace hearth::jinja
