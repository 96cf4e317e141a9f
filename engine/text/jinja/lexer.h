// Cuts template source into text and tags, applying Jinja's whitespace rules: {%- -%} {{- -}}
// control, trim_blocks and lstrip_blocks (as transformers renders chat templates), newline
// normalisation and the dropped final newline.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace hearth::jinja {

struct Segment {
    enum class Kind { Text, Expression, Statement };
    Kind kind = Kind::Text;
    std::string content;  // the text, or the tag's inside without delimiters and '-'/'+'
    int line = 1;
};

// Throws RenderError for an unterminated tag.
std::vector<Segment> split_template(std::string_view source);

}  // namespace hearth::jinja
