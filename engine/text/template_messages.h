// ChatMessage -> the `messages` value a chat template reads, in the shape transformers passes
// (OpenAI's), with an assistant's reasoning put where this template looks for it.
#pragma once

#include <string>
#include <vector>

#include "engine/text/chat_message.h"
#include "engine/text/jinja/value.h"

namespace hearth {

// Where a template takes an assistant's reasoning from; learned once from its source.
enum class ReasoningPlace {
    None,              // nowhere: earlier reasoning is dropped
    ReasoningContent,  // message.reasoning_content (Qwen3)
    ThinkingField,     // message.thinking (gpt-oss)
    ThinkTags,         // `<think>…</think>` at the start of the content, which it strips itself
};

struct ReasoningHandling {
    ReasoningPlace place = ReasoningPlace::None;
    bool strips_think_tags = false;  // it also splits `</think>` out of content itself
};

ReasoningHandling reasoning_handling(const std::string& template_source);

jinja::Value template_messages(const std::vector<ChatMessage>& messages,
                               const ReasoningHandling& reasoning);

}  // namespace hearth
