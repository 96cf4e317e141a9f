#include "engine/text/template_messages.h"

#include <stdexcept>

#include "engine/text/jinja/access.h"
#include "engine/text/jinja/json.h"

namespace hearth {
namespace {

constexpr std::string_view kOpenThink = "<think>";
constexpr std::string_view kCloseThink = "</think>";

bool mentions(const std::string& source, std::string_view text) {
    return source.find(text) != std::string::npos;
}

jinja::Value content_value(const ChatMessage& message) {
    if (!message.content_parts) return jinja::Value(message.content);
    jinja::Array parts;
    for (const auto& text : *message.content_parts) {
        jinja::Object part;
        part.set("type", jinja::Value("text"));
        part.set("text", jinja::Value(text));
        parts.emplace_back(std::move(part));
    }
    return jinja::Value(std::move(parts));
}

// Arguments given as an object are JSON text that templates read as a dict; text that is not
// JSON is the caller's mistake, reported as the render's error rather than a parser's.
jinja::Value arguments_value(const ToolCall& call) {
    if (call.arguments_as_text) return jinja::Value(call.arguments);
    try {
        return jinja::parse_json(call.arguments);
    } catch (const std::invalid_argument& error) {
        throw jinja::RenderError("the arguments of tool call '" + call.name +
                                 "' are not a JSON object: " + error.what());
    }
}

jinja::Value tool_call_value(const ToolCall& call) {
    jinja::Object function;
    function.set("name", jinja::Value(call.name));
    function.set("arguments", arguments_value(call));
    jinja::Object object;
    if (!call.id.empty()) object.set("id", jinja::Value(call.id));
    object.set("type", jinja::Value("function"));
    object.set("function", jinja::Value(std::move(function)));
    return jinja::Value(std::move(object));
}

// A reasoning block written into the content (`<think>…</think>` first) moves to the
// reasoning field for templates that read one but would otherwise print the tags verbatim.
ChatMessage split_think_tags(ChatMessage message) {
    if (!message.reasoning.empty() || message.content_parts) return message;
    if (!message.content.starts_with(kOpenThink)) return message;
    const size_t close = message.content.find(kCloseThink);
    if (close == std::string::npos) return message;
    message.reasoning = jinja::strip(
        message.content.substr(kOpenThink.size(), close - kOpenThink.size()), "", true, true);
    message.content =
        jinja::strip(message.content.substr(close + kCloseThink.size()), "", true, false);
    return message;
}

jinja::Value message_value(ChatMessage message, const ReasoningHandling& reasoning) {
    if (message.role == "assistant" && !reasoning.strips_think_tags &&
        reasoning.place != ReasoningPlace::None) {
        message = split_think_tags(std::move(message));
    }
    if (!message.reasoning.empty() && reasoning.place == ReasoningPlace::ThinkTags) {
        message.content = std::string(kOpenThink) + "\n" + message.reasoning + "\n" +
                          std::string(kCloseThink) + "\n\n" + message.content;
        if (message.content_parts) message.content_parts.reset();
    }
    jinja::Object object;
    object.set("role", jinja::Value(message.role));
    object.set("content", content_value(message));
    if (!message.reasoning.empty()) {
        if (reasoning.place == ReasoningPlace::ReasoningContent)
            object.set("reasoning_content", jinja::Value(message.reasoning));
        if (reasoning.place == ReasoningPlace::ThinkingField)
            object.set("thinking", jinja::Value(message.reasoning));
    }
    if (!message.tool_calls.empty()) {
        jinja::Array calls;
        for (const auto& call : message.tool_calls) calls.push_back(tool_call_value(call));
        object.set("tool_calls", jinja::Value(std::move(calls)));
    }
    if (!message.tool_call_id.empty())
        object.set("tool_call_id", jinja::Value(message.tool_call_id));
    if (!message.name.empty()) object.set("name", jinja::Value(message.name));
    return jinja::Value(std::move(object));
}

}  // namespace

// Read from the source text rather than the syntax tree: these are field names inside
// attribute lookups and string tests ("thinking" in message), which the name walk skips.
ReasoningHandling reasoning_handling(const std::string& source) {
    ReasoningHandling handling;
    handling.strips_think_tags = mentions(source, kCloseThink);
    if (mentions(source, "reasoning_content")) {
        handling.place = ReasoningPlace::ReasoningContent;
    } else if (mentions(source, ".thinking") || mentions(source, "['thinking']")) {
        handling.place = ReasoningPlace::ThinkingField;
    } else if (handling.strips_think_tags) {
        handling.place = ReasoningPlace::ThinkTags;
    }
    return handling;
}

jinja::Value template_messages(const std::vector<ChatMessage>& messages,
                               const ReasoningHandling& reasoning) {
    jinja::Array array;
    for (const auto& message : messages) array.push_back(message_value(message, reasoning));
    return jinja::Value(std::move(array));
}

}  // namespace hearth
