#include "engine/remote/completion_events.h"

#include <stdexcept>

#include "engine/remote/remote_error.h"
#include "engine/text/jinja/json.h"

namespace hearth::remote {
namespace {

using jinja::Value;

constexpr size_t kShownBytes = 200;

[[noreturn]] void malformed(std::string_view what, std::string_view data) {
    std::string shown(data.substr(0, kShownBytes));
    if (data.size() > kShownBytes) shown += "…";
    throw RemoteError(RemoteFailure::MalformedStream,
                      "The server sent " + std::string(what) + ": " + shown);
}

Value parse_object(std::string_view data, std::string_view what) {
    Value value;
    try {
        value = jinja::parse_json(data);
    } catch (const std::invalid_argument&) {
        malformed(std::string(what) + " that is not JSON", data);
    }
    if (!value.is_object()) malformed(std::string(what) + " that is not a JSON object", data);
    return value;
}

const Value* field(const Value& object, const std::string& name) {
    const Value* value = object.as_object().find(name);
    return value == nullptr || value->is_none() ? nullptr : value;
}

// A text field that may be absent or null; anything else is a malformed event.
std::string text_field(const Value& object, const std::string& name, std::string_view data) {
    const Value* value = field(object, name);
    if (value == nullptr) return {};
    if (!value->is_string()) malformed("a '" + name + "' that is not text", data);
    return value->as_string();
}

int count_field(const Value& object, const std::string& name) {
    const Value* value = field(object, name);
    return value != nullptr && value->is_int() ? static_cast<int>(value->as_int()) : 0;
}

Usage usage_of(const Value& usage) {
    Usage out;
    out.prompt_tokens = count_field(usage, "prompt_tokens");
    out.completion_tokens = count_field(usage, "completion_tokens");
    if (const Value* details = field(usage, "prompt_tokens_details");
        details != nullptr && details->is_object()) {
        out.cached_tokens = count_field(*details, "cached_tokens");
    }
    return out;
}

void throw_if_error(const Value& event, std::string_view data) {
    const Value* error = field(event, "error");
    if (error == nullptr) return;
    std::string message = error_message(data);
    int status = 0;
    if (error->is_object()) {
        const Value* code = field(*error, "code");
        if (code != nullptr && code->is_int()) status = static_cast<int>(code->as_int());
    }
    throw RemoteError(RemoteFailure::ServerError, "The server stopped the answer: " + message,
                      status);
}

// Reads the first choice's message or delta into `out`.
void read_choice(const Value& event, const char* part, std::string_view data,
                 CompletionDelta& out) {
    const Value* choices = field(event, "choices");
    if (choices == nullptr || !choices->is_array()) {
        // A usage-only final chunk has an empty list; one with no list at all is not a chunk.
        if (out.usage) return;
        malformed("an event without choices", data);
    }
    if (choices->as_array().empty()) return;
    const Value& choice = choices->as_array().front();
    if (!choice.is_object()) malformed("a choice that is not an object", data);
    if (const Value* reason = field(choice, "finish_reason"); reason != nullptr) {
        if (!reason->is_string()) malformed("a finish_reason that is not text", data);
        out.finish_reason = reason->as_string();
    }
    const Value* message = field(choice, part);
    if (message == nullptr) return;
    if (!message->is_object()) malformed(std::string("a ") + part + " that is not an object", data);
    out.content = text_field(*message, "content", data);
    out.reasoning = text_field(*message, "reasoning_content", data);
    if (out.reasoning.empty()) out.reasoning = text_field(*message, "reasoning", data);
}

CompletionDelta parse_with(std::string_view data, const char* part, std::string_view what) {
    const Value event = parse_object(data, what);
    throw_if_error(event, data);
    CompletionDelta out;
    if (const Value* usage = field(event, "usage"); usage != nullptr && usage->is_object()) {
        out.usage = usage_of(*usage);
    }
    read_choice(event, part, data, out);
    return out;
}

}  // namespace

CompletionDelta parse_chunk(std::string_view data) {
    if (data == "[DONE]") return {.done = true};
    return parse_with(data, "delta", "an event");
}

CompletionDelta parse_completion(std::string_view body) {
    return parse_with(body, "message", "an answer");
}

std::vector<std::string> parse_model_list(std::string_view body) {
    const Value list = parse_object(body, "a model list");
    const Value* data = field(list, "data");
    if (data == nullptr || !data->is_array()) malformed("a model list without 'data'", body);
    std::vector<std::string> ids;
    for (const Value& model : data->as_array()) {
        if (!model.is_object()) malformed("a model entry that is not an object", body);
        const Value* id = field(model, "id");
        if (id == nullptr || !id->is_string()) malformed("a model entry without an 'id'", body);
        ids.push_back(id->as_string());
    }
    return ids;
}

std::string error_message(std::string_view body) {
    try {
        const Value value = jinja::parse_json(body);
        if (value.is_object()) {
            const Value* error = value.as_object().find("error");
            if (error != nullptr && error->is_string()) return error->as_string();
            if (error != nullptr && error->is_object()) {
                const Value* message = error->as_object().find("message");
                if (message != nullptr && message->is_string()) return message->as_string();
            }
            const Value* detail = value.as_object().find("detail");  // FastAPI (vLLM)
            if (detail != nullptr && detail->is_string()) return detail->as_string();
        }
    } catch (const std::exception&) {
        // Not JSON: the body itself, below.
    }
    std::string shown(body.substr(0, kShownBytes));
    if (body.size() > kShownBytes) shown += "…";
    return shown.empty() ? "(no message)" : shown;
}

}  // namespace hearth::remote
