// Jinja's filters (x | name(args)) and tests (x is name(args)) that chat templates use.
#pragma once

#include <string>

#include "engine/text/jinja/value.h"

namespace hearth::jinja {

// Throws UnsupportedTemplate for a filter or test Hearth does not implement.
Value apply_filter(const std::string& name, const Value& input, const CallArguments& args);
bool apply_test(const std::string& name, const Value& value, const CallArguments& args);

// Python's iteration: list items, dict keys, string characters; undefined is empty.
Array iterate(const Value& value);

}  // namespace hearth::jinja
