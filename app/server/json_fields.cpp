#include "app/server/json_fields.h"

#include <fmt/format.h>

#include "app/server/api_error.h"

namespace hearth::server {
namespace {

bool is_plain_number(const jinja::Value& value) {
    return value.is_int() || value.is_float();
}

// JSON's names for what the client sent, not Python's.
std::string json_type_name(const jinja::Value& value) {
    if (value.is_none()) return "null";
    if (value.is_bool()) return "a boolean";
    if (is_plain_number(value)) return "a number";
    if (value.is_string()) return "a string";
    if (value.is_array()) return "a list";
    return "an object";
}

std::string range_text(double min, double max) {
    return fmt::format("from {} to {}", jinja::format_float(min), jinja::format_float(max));
}

}  // namespace

JsonFields::JsonFields(const jinja::Value& object, std::string path)
    : m_object(&object), m_path(std::move(path)) {
    if (!object.is_object()) {
        const std::string what = m_path.empty() ? "the request body" : m_path;
        throw ApiError::invalid_request(
            what + " must be a JSON object, not " + json_type_name(object),
            m_path.empty() ? std::nullopt : std::optional<std::string>(m_path));
    }
}

const jinja::Value* JsonFields::find(const std::string& key) const {
    const jinja::Value* value = m_object->as_object().find(key);
    return value && !value->is_none() ? value : nullptr;
}

std::string JsonFields::path(const std::string& key) const {
    return m_path.empty() ? key : m_path + "." + key;
}

void JsonFields::fail(const std::string& key, const std::string& problem) const {
    throw ApiError::invalid_request(path(key) + " " + problem, path(key));
}

std::optional<std::string> JsonFields::string(const std::string& key) const {
    const jinja::Value* value = find(key);
    if (!value) return std::nullopt;
    if (!value->is_string()) fail(key, "must be a string, not " + json_type_name(*value));
    return value->as_string();
}

std::optional<bool> JsonFields::boolean(const std::string& key) const {
    const jinja::Value* value = find(key);
    if (!value) return std::nullopt;
    if (!value->is_bool()) fail(key, "must be true or false, not " + json_type_name(*value));
    return value->as_bool();
}

std::optional<int64_t> JsonFields::integer(const std::string& key, int64_t min, int64_t max) const {
    const jinja::Value* value = find(key);
    if (!value) return std::nullopt;
    if (!value->is_int()) fail(key, "must be an integer, not " + json_type_name(*value));
    const int64_t number = value->as_int();
    if (number < min || number > max) {
        fail(key, fmt::format("must be from {} to {}, not {}", min, max, number));
    }
    return number;
}

std::optional<double> JsonFields::number(const std::string& key, double min, double max) const {
    const jinja::Value* value = find(key);
    if (!value) return std::nullopt;
    if (!is_plain_number(*value)) fail(key, "must be a number, not " + json_type_name(*value));
    const double number = value->as_float();
    if (!(number >= min && number <= max)) {
        fail(key,
             "must be a number " + range_text(min, max) + ", not " + jinja::format_float(number));
    }
    return number;
}

std::optional<JsonFields> JsonFields::object(const std::string& key) const {
    const jinja::Value* value = find(key);
    if (!value) return std::nullopt;
    if (!value->is_object()) fail(key, "must be an object, not " + json_type_name(*value));
    return JsonFields(*value, path(key));
}

}  // namespace hearth::server
