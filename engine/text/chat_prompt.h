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

// Where each message begins in the prompt of `messages` (`prompt_length` tokens), for
// dropping whole turns when the conversation outgrows the context: measured by rendering the
// conversation up to each message, so it costs a render per message (ask only near the limit).
// `options` are the prompt's own (its generation prompt aside): a variable such as
// enable_thinking may change the text before the first message.
std::vector<int> chat_turn_starts(const ChatTemplate& chat_template, const Tokenizer& tokenizer,
                                  const std::vector<ChatMessage>& messages, size_t prompt_length,
                                  ChatRenderOptions options);

}  // namespace hearth
