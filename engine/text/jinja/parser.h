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

// Throws RenderError for malformed templates and UnsupportedTemplate for missing features.
Body parse_template(std::string_view source);

}  // namespace hearth::jinja
