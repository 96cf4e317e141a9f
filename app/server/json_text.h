// JSON as the API writes it: compact, no spaces after separators, UTF-8 as it is (what
// OpenAI's own responses look like, and the fewest bytes per streamed chunk).
#pragma once

#include <string>

#include "engine/text/jinja/value.h"

namespace hearth::server {

std::string compact_json(const jinja::Value& value);

}  // namespace hearth::server
