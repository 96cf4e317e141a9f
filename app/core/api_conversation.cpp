#include "app/core/api_conversation.h"

#include <QStringList>

namespace hearth::core {
namespace {

constexpr int kTitleCharacters = 40;  // characters of the first question kept in the title

QString text(const std::string& utf8) {
    return QString::fromStdString(utf8);
}

// The first line of the first user message, cut at a word boundary.
QString opening_words(const ChatRequest& request) {
    for (const auto& message : request.messages) {
        if (message.role != "user") continue;
        const QString line = text(message.content).trimmed().section('\n', 0, 0).simplified();
        if (line.size() <= kTitleCharacters) return line;
        const int space = line.lastIndexOf(' ', kTitleCharacters);
        return line.left(space > 0 ? space : kTitleCharacters) + QStringLiteral("…");
    }
    return QStringLiteral("(no question)");
}

ConversationSettings settings_of(const ChatRequest& request) {
    ConversationSettings settings;
    QStringList system;
    for (const auto& message : request.messages) {
        if (message.role == "system" || message.role == "developer")
            system.append(text(message.content));
    }
    settings.system_prompt = system.join(QStringLiteral("\n\n"));
    settings.sampler = request.sampler;
    settings.max_tokens = request.max_tokens;
    settings.random_seed = request.fresh_seed;
    settings.json_mode = request.json_mode || request.json_schema.has_value();
    settings.enable_thinking = request.enable_thinking;
    settings.reasoning_effort = text(request.reasoning_effort.value_or(std::string()));
    return settings;
}

}  // namespace

Conversation api_conversation(const ChatRequest& request, const GenerationResult& result,
                              const AnswerOrigin& origin) {
    Conversation conversation(0, QString::fromLatin1(kApiTitlePrefix) + opening_words(request));
    conversation.settings() = settings_of(request);
    int parent = -1;
    for (const auto& message : request.messages) {
        if (message.role != "user" && message.role != "assistant") continue;
        if (message.role == "assistant" && message.content.empty()) continue;  // tool calls only
        parent = conversation.add(parent, text(message.role), text(message.content));
        conversation.find(parent)->reasoning = text(message.reasoning);
    }
    const int answer = conversation.add(parent, QStringLiteral("assistant"), text(result.text));
    GenerationRecord record;
    record.model_file = origin.model_file;
    record.backend = origin.backend;
    record.seed = request.fresh_seed ? 0 : request.sampler.seed;
    record.sampler = request.sampler;
    record.stats = result.stats;
    conversation.find(answer)->generation = record;
    conversation.find(answer)->reasoning = text(result.reasoning);
    return conversation;
}

}  // namespace hearth::core
