// The chat-template fixtures in shared/fixtures/chat_templates: one JSON file per family with
// the template, its BOS/EOS texts and conversations rendered by transformers.
#pragma once

#include <ctime>
#include <string>
#include <vector>

#include "engine/text/jinja/value.h"

namespace hearth::test {

jinja::Value template_fixture(const std::string& family);  // the parsed JSON file
std::string fixture_template(const std::string& family);   // its chat template
std::vector<std::string> template_families();              // every fixture, sorted
// The time the fixtures were rendered at (2026-11-22 09:30, a Sunday): what strftime_now sees.
std::tm fixture_now();
// The fixture's string field `key`, or "" when it is absent or null.
std::string fixture_text(const jinja::Value& object, const char* key);

}  // namespace hearth::test
