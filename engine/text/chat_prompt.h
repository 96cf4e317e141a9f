// Conversation -> prompt tokens: the template's text, tokenized with special tokens recognised
// only inside the template's output (user text never becomes a control token).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/text/chat_template.h"
#include "engine/text/tokenizer.h"

namespace hearth {

struct ChatPrompt {
    std::string text;
    std::vector<int32_t> tokens;
};

ChatPrompt build_chat_prompt(const ChatTemplate& chat_template, const Tokenizer& tokenizer,
                             const std::vector<ChatMessage>& messages,
                             const ChatRenderOptions& options);

}  // namespace hearth
