// Turns the segments of a template into statements and expressions.
#pragma once

#include <string_view>

#include "engine/text/jinja/ast.h"

namespace hearth::jinja {

// A template that uses something this interpreter does not implement. The message names the
// construct, so the user knows why Hearth fell back to its built-in chat format.
class UnsupportedTemplate : public RenderError {
public:
    using RenderError::RenderError;
};

// Throws RenderError for malformed templates, UnsupportedTemplate for missing features and
// LimitExceeded past limits.max_source_nesting or an expression taller than
// limits.max_nesting_depth.
Body parse_template(std::string_view source, const Limits& limits = {});

}  // namespace hearth::jinja
