// The JSON parser the template engine and JSON mode share (engine/text/jinja/json.*), on
// arbitrary bytes. It may refuse only with std::invalid_argument; what it accepts must dump to
// JSON that parses back to the same dump (compact and indented, as tojson writes them).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "engine/text/jinja/json.h"

namespace {

void check_round_trip(const hearth::jinja::Value& value, const hearth::jinja::JsonStyle& style) {
    const std::string dumped = hearth::jinja::dump_json(value, style);
    std::string again;
    try {
        again = hearth::jinja::dump_json(hearth::jinja::parse_json(dumped), style);
    } catch (const std::invalid_argument& error) {
        std::fprintf(stderr, "json: its own dump does not parse (%s): %s\n", error.what(),
                     dumped.c_str());
        std::abort();
    }
    if (again != dumped) {
        std::fprintf(stderr, "json: dump, parse, dump changed\n%s\n%s\n", dumped.c_str(),
                     again.c_str());
        std::abort();
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    hearth::jinja::Value value;
    try {
        value = hearth::jinja::parse_json(text);
    } catch (const std::invalid_argument&) {
        return 0;
    }
    check_round_trip(value, {});
    check_round_trip(value, {.indent = 2, .sort_keys = true});
    return 0;
}
