// Conversations and tool definitions in the shape OpenAI's chat API uses (and the chat-template
// fixtures, and transformers' apply_chat_template): what the CLI and the server read, turned into
// the engine's ChatMessage. Every problem is reported with the path of the offending value.
#pragma once

#include <vector>

#include "engine/text/chat_message.h"
#include "engine/text/jinja/value.h"

namespace hearth {

// `messages` is a parsed JSON array of {role, content, reasoning_content | thinking,
// tool_calls, tool_call_id, name}. Content may be a string, null (no text, as OpenAI sends
// beside tool calls) or a list of text parts. Throws std::invalid_argument naming the value,
// e.g. "messages[2].tool_calls[0].function.name must be a string".
std::vector<ChatMessage> parse_chat_messages(const jinja::Value& messages);

// `tools` is a parsed JSON array of OpenAI function definitions
// ({"type": "function", "function": {"name", "description", "parameters"}}). Returned as given,
// since templates print the JSON schema as it is; throws std::invalid_argument like above.
jinja::Value parse_tool_definitions(const jinja::Value& tools);

}  // namespace hearth
