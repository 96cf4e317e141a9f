#include "app/core/conversation_request.h"

namespace hearth::core {

ChatRequest chat_request(const Conversation& conversation) {
    const ConversationSettings& settings = conversation.settings();
    ChatRequest request;
    request.conversation = conversation.id();
    if (!settings.system_prompt.trimmed().isEmpty())
        request.messages.push_back({"system", settings.system_prompt.toStdString()});
    for (const int id : conversation.thread()) {
        const Message* message = conversation.find(id);
        ChatMessage sent{message->role.toStdString(), message->text.toStdString()};
        // The template decides what earlier reasoning the model sees (Qwen3 keeps the latest,
        // DeepSeek drops it, gpt-oss reads `thinking`); Continue needs the answer's own.
        sent.reasoning = message->reasoning.toStdString();
        request.messages.push_back(std::move(sent));
    }
    request.context_length = settings.context_length;
    request.max_tokens = settings.max_tokens;
    request.sampler = settings.sampler;
    request.fresh_seed = settings.random_seed;
    request.overflow = settings.overflow;
    request.json_mode = settings.json_mode;
    request.enable_thinking = settings.enable_thinking;
    if (!settings.reasoning_effort.isEmpty())
        request.reasoning_effort = settings.reasoning_effort.toStdString();
    return request;
}

ChatRequest continue_request(const Conversation& conversation) {
    ChatRequest request = chat_request(conversation);
    request.continue_final_message = true;
    return request;
}

}  // namespace hearth::core
