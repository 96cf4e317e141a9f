#include "tests/support/template_fixtures.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "engine/text/jinja/json.h"
#include "tests/support/shared_data.h"

namespace hearth::test {

jinja::Value template_fixture(const std::string& family) {
    std::ifstream stream(fixture_path("chat_templates/" + family + ".json"));
    std::stringstream content;
    content << stream.rdbuf();
    return jinja::parse_json(content.str());
}

std::string fixture_template(const std::string& family) {
    return fixture_text(template_fixture(family), "template");
}

std::vector<std::string> template_families() {
    std::vector<std::string> names;
    for (const auto& entry : std::filesystem::directory_iterator(fixture_path("chat_templates"))) {
        if (entry.path().extension() == ".json") names.push_back(entry.path().stem().string());
    }
    std::sort(names.begin(), names.end());
    return names;
}

std::tm fixture_now() {
    std::tm now{};
    now.tm_year = 2026 - 1900;
    now.tm_mon = 10;
    now.tm_mday = 22;
    now.tm_hour = 9;
    now.tm_min = 30;
    now.tm_wday = 0;
    now.tm_yday = 325;
    return now;
}

std::string fixture_text(const jinja::Value& object, const char* key) {
    const jinja::Value* value = object.as_object().find(key);
    return value && value->is_string() ? value->as_string() : std::string{};
}

}  // namespace hearth::test
