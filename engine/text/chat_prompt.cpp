#include "engine/text/chat_prompt.h"

#include <utility>

#include "engine/text/jinja/access.h"

namespace hearth {

namespace {

// Where each message's content (as is, or trimmed as most templates print it) appears in the
// rendered text, searched in conversation order. A template that rewrites content beyond
// trimming leaves that message unprotected; its special tokens then come from the template's
// own rewriting rules.
std::vector<std::pair<size_t, size_t>> content_ranges(const std::string& text,
                                                      const std::vector<ChatMessage>& messages) {
    std::vector<std::pair<size_t, size_t>> ranges;
    size_t cursor = 0;
    for (const auto& message : messages) {
        for (const std::string& candidate :
             {message.content, jinja::strip(message.content, "", true, true)}) {
            if (candidate.empty()) continue;
            const size_t found = text.find(candidate, cursor);
            if (found == std::string::npos) continue;
            ranges.emplace_back(found, found + candidate.size());
            cursor = found + candidate.size();
            break;
        }
    }
    return ranges;
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
        // Where the messages' words landed, special-token text stays text: a user who types
        // "<|im_end|>" cannot end their own turn.
        prompt.text = chat_template.render(messages, options);
        const auto plain = content_ranges(prompt.text, messages);
        const bool has_bos =
            vocab.valid(vocab.bos) && prompt.text.starts_with(vocab.tokens[vocab.bos]);
        prompt.tokens = tokenizer.encode(
            prompt.text, {.add_special = !has_bos, .parse_special = true, .plain_ranges = plain});
    }
    return prompt;
}

std::vector<int> chat_turn_starts(const ChatTemplate& chat_template, const Tokenizer& tokenizer,
                                  const std::vector<ChatMessage>& messages, size_t prompt_length,
                                  ChatRenderOptions options) {
    options.add_generation_prompt = false;
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
