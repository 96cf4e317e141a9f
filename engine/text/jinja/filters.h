// Jinja's filters (x | name(args)) and tests (x is name(args)) that chat templates use.
#pragma once

#include <string>

#include "engine/text/jinja/value.h"

namespace hearth::jinja {

// Throws UnsupportedTemplate for a filter or test Hearth does not implement, and
// LimitExceeded for a result past `limits`.
Value apply_filter(const std::string& name, const Value& input, const CallArguments& args,
                   const Limits& limits);
bool apply_test(const std::string& name, const Value& value, const CallArguments& args,
                const Limits& limits);

// Python's iteration: list items, dict keys, string characters; undefined is empty. A string
// of more characters than limits.max_list_items fails before it is split.
Array iterate(const Value& value, const Limits& limits);

}  // namespace hearth::jinja
