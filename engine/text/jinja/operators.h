// Python's operators on template values: arithmetic with Python's floor division and modulo,
// + and * on strings and lists (sized against the Limits before anything is built), ~,
// comparisons and `in`. `and`/`or` short-circuit, so the interpreter evaluates those itself.
#pragma once

#include <string>

#include "engine/text/jinja/value.h"

namespace hearth::jinja {

// Throws RenderError with the undefined value's hint ("'x' is undefined").
void require_defined(const Value& value);

// `op` is "not", "-" or "+".
Value unary_operation(const std::string& op, const Value& operand);
// Every binary operator but and/or. Throws RenderError where Python raises a TypeError or
// ZeroDivisionError, or an int would overflow 64 bits.
Value binary_operation(const std::string& op, const Value& left, const Value& right,
                       const Limits& limits);

}  // namespace hearth::jinja
