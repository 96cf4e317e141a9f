#include "engine/grammar/json_schema.h"

#include <algorithm>

#include "engine/text/jinja/json.h"

namespace hearth {

class SchemaReader final {
public:
    explicit SchemaReader(JsonSchema& schema) : m_schema(schema) {}

    int read(const jinja::Value& value, const std::string& where) {
        if (!value.is_object()) throw SchemaError("schema " + where + " is not an object");
        const int index = static_cast<int>(m_schema.m_nodes.size());
        m_schema.m_nodes.emplace_back();
        SchemaNode node;
        for (const auto& [key, field] : value.as_object().entries()) {
            if (key == "type") {
                node.types = read_types(field, where);
            } else if (key == "properties") {
                read_properties(field, where, node);
            } else if (key == "required") {
                read_required(field, where, node);
            } else if (key == "items") {
                node.items = read(field, where + ".items");  // -1 until then: any()
            } else if (key == "enum" || key == "const") {
                read_literals(key == "enum" ? field : jinja::Value(jinja::Array{field}), where,
                              node);
            } else if (!is_annotation(key)) {
                throw SchemaError("schema " + where + " uses \"" + key +
                                  "\", which JSON mode does not support");
            }
        }
        if (!node.properties.empty() && node.types == kJsonAny) node.types = kJsonObject;
        if (node.items >= 0 && node.types == kJsonAny) node.types = kJsonArray;
        m_schema.m_nodes[static_cast<size_t>(index)] = std::move(node);
        return index;
    }

private:
    static bool is_annotation(const std::string& key) {
        return key == "title" || key == "description" || key == "$schema" || key == "$id" ||
               key == "examples" || key == "default" || key == "additionalProperties";
    }

    static uint8_t type_bit(const jinja::Value& name, const std::string& where) {
        static const std::pair<const char*, uint8_t> kTypes[] = {
            {"object", kJsonObject}, {"array", kJsonArray},     {"string", kJsonString},
            {"number", kJsonNumber}, {"integer", kJsonInteger}, {"boolean", kJsonBoolean},
            {"null", kJsonNull},
        };
        if (name.is_string()) {
            for (const auto& [text, bit] : kTypes) {
                if (name.as_string() == text) return bit;
            }
        }
        throw SchemaError("schema " + where + " has an unknown type " + jinja::dump_json(name));
    }

    static uint8_t read_types(const jinja::Value& field, const std::string& where) {
        if (!field.is_array()) return type_bit(field, where);
        uint8_t types = 0;
        for (const auto& name : field.as_array()) types |= type_bit(name, where);
        if (types == 0) throw SchemaError("schema " + where + " allows no type");
        return types;
    }

    void read_properties(const jinja::Value& field, const std::string& where, SchemaNode& node) {
        if (!field.is_object())
            throw SchemaError("schema " + where + ".properties is not an object");
        if (field.as_object().size() > JsonSchema::kMaxProperties) {
            throw SchemaError("schema " + where + " has more than 64 properties");
        }
        for (const auto& [name, property] : field.as_object().entries()) {
            node.properties.emplace_back(jinja::dump_json(jinja::Value(name)),
                                         read(property, where + "." + name));
        }
    }

    static void read_required(const jinja::Value& field, const std::string& where,
                              SchemaNode& node) {
        if (!field.is_array()) throw SchemaError("schema " + where + ".required is not a list");
        for (const auto& name : field.as_array()) {
            const auto found = std::find_if(
                node.properties.begin(), node.properties.end(),
                [&](const auto& property) { return property.first == jinja::dump_json(name); });
            if (found == node.properties.end()) {
                throw SchemaError("schema " + where + " requires " + jinja::dump_json(name) +
                                  ", which is not among its properties (list properties first)");
            }
            node.required |= uint64_t{1} << (found - node.properties.begin());
        }
    }

    static void read_literals(const jinja::Value& field, const std::string& where,
                              SchemaNode& node) {
        if (!field.is_array() || field.as_array().empty()) {
            throw SchemaError("schema " + where + ".enum is not a non-empty list");
        }
        if (field.as_array().size() > JsonSchema::kMaxLiterals) {
            throw SchemaError("schema " + where + ".enum has more than 64 values");
        }
        const jinja::JsonStyle compact{.item_separator = ",", .key_separator = ":"};
        for (const auto& literal : field.as_array()) {
            node.literals.push_back(jinja::dump_json(literal, compact));
        }
    }

    JsonSchema& m_schema;
};

JsonSchema JsonSchema::any_object() {
    JsonSchema schema;
    schema.m_nodes.push_back({.types = kJsonObject});
    schema.m_nodes.push_back({});
    schema.compute_shortest();
    return schema;
}

JsonSchema JsonSchema::parse(std::string_view schema_json) {
    jinja::Value value;
    try {
        value = jinja::parse_json(schema_json);
    } catch (const std::invalid_argument& error) {
        throw SchemaError(std::string("the JSON schema is not valid JSON: ") + error.what());
    }
    JsonSchema schema;
    SchemaReader(schema).read(value, "root");
    schema.m_nodes.push_back({});
    schema.compute_shortest();
    return schema;
}

// Children always have higher indices than their parents, so one backward pass suffices.
void JsonSchema::compute_shortest() {
    m_shortest.assign(m_nodes.size(), 0);
    for (size_t i = m_nodes.size(); i-- > 0;) {
        const SchemaNode& node = m_nodes[i];
        int best = 1 << 20;
        if (!node.literals.empty()) {
            for (const auto& literal : node.literals) best = std::min<int>(best, literal.size());
        } else {
            if (node.types & (kJsonNumber | kJsonInteger)) best = std::min(best, 1);
            if (node.types & (kJsonString | kJsonArray)) best = std::min(best, 2);
            if (node.types & (kJsonBoolean | kJsonNull)) best = std::min(best, 4);
            if (node.types & kJsonObject) {
                int size = 2;
                bool first = true;
                for (size_t p = 0; p < node.properties.size(); ++p) {
                    if (!(node.required >> p & 1)) continue;
                    size += (first ? 0 : 1) + static_cast<int>(node.properties[p].first.size()) +
                            1 + m_shortest[static_cast<size_t>(node.properties[p].second)];
                    first = false;
                }
                best = std::min(best, size);
            }
        }
        m_shortest[i] = best;
    }
}

}  // namespace hearth
