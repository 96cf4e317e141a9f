#include "engine/text/chat_json.h"

#include <stdexcept>
#include <string>

#include "engine/text/jinja/json.h"

namespace hearth {
namespace {

using jinja::Value;

[[noreturn]] void fail(const std::string& path, const std::string& problem) {
    throw std::invalid_argument(path + " " + problem);
}

const Value* member(const Value& object, const char* key) {
    const Value* found = object.as_object().find(key);
    return found && !found->is_none() ? found : nullptr;
}

std::string string_member(const Value& object, const char* key, const std::string& path,
                          bool required) {
    const Value* value = member(object, key);
    if (!value) {
        if (required) fail(path + "." + key, "is missing");
        return {};
    }
    if (!value->is_string()) fail(path + "." + key, "must be a string");
    return value->as_string();
}

void require_object(const Value& value, const std::string& path) {
    if (!value.is_object()) fail(path, "must be an object");
}

void require_array(const Value& value, const std::string& path) {
    if (!value.is_array()) fail(path, "must be an array");
}

bool is_known_role(const std::string& role) {
    for (const char* known : {"system", "developer", "user", "assistant", "tool"}) {
        if (role == known) return true;
    }
    return false;
}

// Text parts only: the models Hearth runs read no images or audio, and dropping a part would
// change what the user asked without telling them.
void read_content(const Value& message, const std::string& path, ChatMessage& out) {
    const Value* content = member(message, "content");
    if (!content) return;
    if (content->is_string()) {
        out.content = content->as_string();
        return;
    }
    if (!content->is_array()) fail(path + ".content", "must be a string, null or a list of parts");
    std::vector<std::string> parts;
    for (size_t i = 0; i < content->as_array().size(); ++i) {
        const Value& part = content->as_array()[i];
        const std::string part_path = path + ".content[" + std::to_string(i) + "]";
        require_object(part, part_path);
        const std::string type = string_member(part, "type", part_path, true);
        if (type != "text") {
            fail(part_path, "is a '" + type + "' part; only text parts are supported");
        }
        parts.push_back(string_member(part, "text", part_path, true));
        out.content += parts.back();
    }
    out.content_parts = std::move(parts);
}

ToolCall read_tool_call(const Value& call, const std::string& path) {
    require_object(call, path);
    ToolCall out;
    out.id = string_member(call, "id", path, false);
    const std::string type = string_member(call, "type", path, false);
    if (!type.empty() && type != "function") fail(path + ".type", "must be \"function\"");
    const Value* function = member(call, "function");
    if (!function) fail(path + ".function", "is missing");
    const std::string function_path = path + ".function";
    require_object(*function, function_path);
    out.name = string_member(*function, "name", function_path, true);
    const Value* arguments = member(*function, "arguments");
    if (!arguments) {
        out.arguments = "{}";
    } else if (arguments->is_string()) {
        out.arguments = arguments->as_string();
        out.arguments_as_text = true;
    } else if (arguments->is_object()) {
        out.arguments = jinja::dump_json(*arguments);
    } else {
        fail(function_path + ".arguments", "must be an object or a JSON string");
    }
    return out;
}

ChatMessage read_message(const Value& message, const std::string& path) {
    require_object(message, path);
    ChatMessage out;
    out.role = string_member(message, "role", path, true);
    if (!is_known_role(out.role)) {
        fail(path + ".role",
             "is '" + out.role + "'; expected system, developer, user, assistant or tool");
    }
    read_content(message, path, out);
    out.reasoning = string_member(message, "reasoning_content", path, false);
    if (out.reasoning.empty()) out.reasoning = string_member(message, "thinking", path, false);
    if (const Value* calls = member(message, "tool_calls")) {
        require_array(*calls, path + ".tool_calls");
        for (size_t i = 0; i < calls->as_array().size(); ++i) {
            out.tool_calls.push_back(read_tool_call(
                calls->as_array()[i], path + ".tool_calls[" + std::to_string(i) + "]"));
        }
    }
    out.tool_call_id = string_member(message, "tool_call_id", path, false);
    out.name = string_member(message, "name", path, false);
    return out;
}

}  // namespace

std::vector<ChatMessage> parse_chat_messages(const jinja::Value& messages) {
    require_array(messages, "messages");
    std::vector<ChatMessage> out;
    for (size_t i = 0; i < messages.as_array().size(); ++i) {
        out.push_back(read_message(messages.as_array()[i], "messages[" + std::to_string(i) + "]"));
    }
    return out;
}

jinja::Value parse_tool_definitions(const jinja::Value& tools) {
    require_array(tools, "tools");
    for (size_t i = 0; i < tools.as_array().size(); ++i) {
        const Value& tool = tools.as_array()[i];
        const std::string path = "tools[" + std::to_string(i) + "]";
        require_object(tool, path);
        if (string_member(tool, "type", path, true) != "function") {
            fail(path + ".type", "must be \"function\"");
        }
        const Value* function = member(tool, "function");
        if (!function) fail(path + ".function", "is missing");
        require_object(*function, path + ".function");
        string_member(*function, "name", path + ".function", true);
        if (const Value* parameters = member(*function, "parameters")) {
            require_object(*parameters, path + ".function.parameters");
        }
    }
    return tools;
}

}  // namespace hearth
