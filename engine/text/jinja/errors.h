// How rendering fails: every error a template causes is a RenderError whose message is what
// the user sees.
#pragma once

#include <stdexcept>

namespace hearth::jinja {

// Any failure while parsing or rendering.
class RenderError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// raise_exception(message) from inside a template: the message reaches the user verbatim.
class TemplateRaised : public RenderError {
public:
    using RenderError::RenderError;
};

// A render stopped by one of the Limits; the message names the limit and its value.
class LimitExceeded : public RenderError {
public:
    using RenderError::RenderError;
};

}  // namespace hearth::jinja
