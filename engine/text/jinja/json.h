// JSON <-> template values, the way Python's json module does it: objects keep their key order,
// integers stay integers, and dumping matches json.dumps(ensure_ascii=False) byte for byte.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "engine/text/jinja/value.h"

namespace hearth::jinja {

// Throws std::invalid_argument naming the byte offset of the first problem.
Value parse_json(std::string_view text);

struct JsonStyle {
    std::optional<int> indent;  // json.dumps indent=
    std::string item_separator = ", ";
    std::string key_separator = ": ";
    bool sort_keys = false;
};

// Throws LimitExceeded past limits.max_string_bytes or limits.max_nesting_depth.
std::string dump_json(const Value& value, const JsonStyle& style = {}, const Limits& limits = {});

}  // namespace hearth::jinja
