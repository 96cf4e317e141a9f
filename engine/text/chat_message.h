// One message of a conversation in the engine's own shape: what the window, the CLI and the
// server all hand the chat template, whatever wire format they read it from.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace hearth {

// A function call an assistant message made (OpenAI's `tool_calls[i]`).
struct ToolCall {
    std::string id;         // empty: the client gave none
    std::string name;       // the function called
    std::string arguments;  // JSON text of the arguments
    // Clients send the arguments either as an object or as a JSON string; templates branch on
    // which (`arguments is string`), so the string form is kept as the client chose it.
    bool arguments_as_text = false;
};

struct ChatMessage {
    std::string role;  // "system", "developer", "user", "assistant" or "tool"
    std::string content;
    // Set when the client sent the content as a list of text parts: templates such as Mistral
    // Small's render a list differently from a string. `content` then holds the parts joined.
    std::optional<std::vector<std::string>> content_parts;
    // An assistant's reasoning kept apart from its answer (`reasoning_content`); where the
    // template has no place for it, it is folded back into the content or dropped.
    std::string reasoning;
    std::vector<ToolCall> tool_calls;  // assistant messages
    std::string tool_call_id;          // tool messages: the call this result answers
    std::string name;                  // tool messages: the function that produced it
};

}  // namespace hearth
