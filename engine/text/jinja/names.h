// The names a parsed template looks up: what a front end asks to learn whether a template
// reads an optional input such as `enable_thinking` before offering a choice for it.
#pragma once

#include <set>
#include <string>

#include "engine/text/jinja/ast.h"

namespace hearth::jinja {

// Every variable or global the template's expressions look up by name, wherever they stand
// (a branch that never runs included). Attributes, filters and tests are not names; names a
// statement only assigns (`set`, loop variables) count only where an expression reads them.
std::set<std::string> names_read(const Body& body);

}  // namespace hearth::jinja
