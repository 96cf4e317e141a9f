// Reading from values the way Jinja does in Python: x.y and x['y'] on dicts, indexes and
// slices on lists and strings, and the str/dict methods chat templates call.
#pragma once

#include <optional>
#include <string>

#include "engine/text/jinja/value.h"

namespace hearth::jinja {

// x.name: a dict key, a namespace attribute or a bound method; Undefined when there is none.
// Throws RenderError on an undefined x, as Jinja does. String methods that build (replace,
// split) fail with LimitExceeded past `limits`.
Value get_attribute(const Value& value, const std::string& name, const Limits& limits = {});
// x[key]: list/str index (negative counts from the end), dict key, else get_attribute.
Value get_item(const Value& value, const Value& key, const Limits& limits = {});
// x[start:stop:step] with Python's rules for omitted and negative parts.
Value get_slice(const Value& value, std::optional<int64_t> start, std::optional<int64_t> stop,
                std::optional<int64_t> step);

// Python's str.strip/lstrip/rstrip: Unicode whitespace when `characters` is empty.
std::string strip(const std::string& text, const std::string& characters, bool left, bool right);

}  // namespace hearth::jinja
