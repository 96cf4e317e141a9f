// A compiled Jinja template, rendered the way transformers renders chat templates
// (trim_blocks, lstrip_blocks, raise_exception, strftime_now, namespace, tojson as json.dumps).
#pragma once

#include <ctime>
#include <string>
#include <string_view>

#include "engine/text/jinja/ast.h"
#include "engine/text/jinja/limits.h"
#include "engine/text/jinja/value.h"

namespace hearth::jinja {

class Template final {
public:
    // Throws RenderError for a malformed template, UnsupportedTemplate for a missing feature,
    // LimitExceeded for one nested past limits.max_source_nesting or max_nesting_depth. Every
    // render keeps within `limits`.
    explicit Template(std::string_view source, const Limits& limits = {});

    // `now` is what strftime_now() formats. Throws TemplateRaised for raise_exception(),
    // LimitExceeded when the template needs more than its Limits, and RenderError (or
    // UnsupportedTemplate) for anything else that fails.
    std::string render(const Object& variables, const std::tm& now) const;

    const Limits& limits() const { return m_limits; }

    // Whether any expression looks `name` up: an optional input the template never reads
    // cannot change what it renders.
    bool reads(const std::string& name) const;

private:
    Limits m_limits;
    Body m_body;
};

// strftime with English month and day names whatever the process locale is.
std::string format_time(const std::string& format, const std::tm& time);

}  // namespace hearth::jinja
