// Typed reads of one JSON object's members, for the API's request bodies. A member that is absent
// or null reads as unset (OpenAI's clients send null for "not given"); one of the wrong type or
// out of range is an ApiError (400) whose message and `param` name its path, e.g.
// "response_format.json_schema.schema must be an object".
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "engine/text/jinja/value.h"

namespace hearth::server {

class JsonFields {
public:
    // `path` is the object's own path ("" for the body, "stream_options", ...). Throws ApiError
    // when `object` is not a JSON object.
    JsonFields(const jinja::Value& object, std::string path);

    // The member, or nullptr when it is absent or null.
    const jinja::Value* find(const std::string& key) const;
    // The path of a member, for messages: "stream_options.include_usage".
    std::string path(const std::string& key) const;

    std::optional<std::string> string(const std::string& key) const;
    std::optional<bool> boolean(const std::string& key) const;
    // An integer (never a bool, never a fraction) from `min` to `max`.
    std::optional<int64_t> integer(const std::string& key, int64_t min, int64_t max) const;
    // Any number (never a bool) from `min` to `max`.
    std::optional<double> number(const std::string& key, double min, double max) const;
    // A nested object.
    std::optional<JsonFields> object(const std::string& key) const;

    // Throws the ApiError for a member that is present with a value it may not have.
    [[noreturn]] void fail(const std::string& key, const std::string& problem) const;

private:
    const jinja::Value* m_object;
    std::string m_path;
};

}  // namespace hearth::server
