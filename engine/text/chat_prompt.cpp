#include "engine/text/chat_prompt.h"

#include <utility>

#include "engine/text/control_text_shield.h"

namespace hearth {

namespace {

std::vector<ChatMessage> shielded_messages(ControlTextShield& shield,
                                           std::vector<ChatMessage> messages) {
    for (auto& message : messages) {
        message.content = shield.shield_text(message.content);
        if (message.content_parts) {
            for (auto& part : *message.content_parts) part = shield.shield_text(part);
        }
        message.reasoning = shield.shield_text(message.reasoning);
        for (auto& call : message.tool_calls) {
            // An object's JSON text goes back through the JSON parser, whose escapes a marker
            // survives unchanged: it holds no quote, backslash or control character.
            call.arguments = shield.shield_text(call.arguments);
            call.name = shield.shield_text(call.name);
        }
        message.tool_call_id = shield.shield_text(message.tool_call_id);
        message.name = shield.shield_text(message.name);
    }
    return messages;
}

}  // namespace

ChatPrompt build_chat_prompt(const ChatTemplate& chat_template, const Tokenizer& tokenizer,
                             const std::vector<ChatMessage>& messages,
                             const ChatRenderOptions& options) {
    ChatPrompt prompt;
    const auto& vocab = tokenizer.vocabulary();
    if (!chat_template.has_template()) {
        // Plain continuation: the messages are text a user typed, so no special-token parsing.
        prompt.text = chat_template.render(messages, options);
        prompt.tokens =
            tokenizer.encode(prompt.text, {.add_special = true, .parse_special = false});
    } else {
        // Templates print their own special tokens as text, BOS included for most families.
        // Special-token text inside the conversation's data stays text (see ControlTextShield).
        ControlTextShield shield(vocab);
        const auto data = shielded_messages(shield, messages);
        ChatRenderOptions shielded = options;
        shielded.tools = shield.shield_value(options.tools);
        shielded.extra_variables = shield.shield_object(options.extra_variables);
        auto restored = shield.restore(chat_template.render(data, shielded));
        prompt.text = std::move(restored.text);
        const bool has_bos =
            vocab.valid(vocab.bos) && prompt.text.starts_with(vocab.tokens[vocab.bos]);
        prompt.tokens = tokenizer.encode(prompt.text, {.add_special = !has_bos,
                                                       .parse_special = true,
                                                       .plain_ranges = restored.plain_ranges});
    }
    return prompt;
}

std::vector<int> chat_turn_starts(const ChatTemplate& chat_template, const Tokenizer& tokenizer,
                                  const std::vector<ChatMessage>& messages, size_t prompt_length,
                                  ChatRenderOptions options) {
    options.add_generation_prompt = false;
    options.continue_final_message = false;  // the heads end with finished messages
    std::vector<int> starts{0};
    for (size_t i = 1; i < messages.size(); ++i) {
        const std::vector<ChatMessage> head(messages.begin(),
                                            messages.begin() + static_cast<long>(i));
        const auto prefix = build_chat_prompt(chat_template, tokenizer, head, options);
        const int start = static_cast<int>(std::min(prefix.tokens.size(), prompt_length));
        if (start > starts.back()) starts.push_back(start);
    }
    return starts;
}

}  // namespace hearth
