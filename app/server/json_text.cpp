#include "app/server/json_text.h"

#include "engine/text/jinja/json.h"

namespace hearth::server {

std::string compact_json(const jinja::Value& value) {
    static const jinja::JsonStyle kCompact{.item_separator = ",", .key_separator = ":"};
    return jinja::dump_json(value, kCompact);
}

}  // namespace hearth::server
