#include "app/core/history_json.h"

#include <QDateTime>
#include <QJsonArray>
#include <QJsonDocument>

#include <stdexcept>

namespace hearth::core {
namespace {

// 64-bit values travel as strings: JSON numbers are doubles and would lose seeds' low bits.
QString big(uint64_t value) {
    return QString::number(value);
}
uint64_t big(const QJsonValue& value) {
    return value.toString().toULongLong();
}

}  // namespace

QJsonObject sampler_to_json(const SamplerSettings& s) {
    return {{"temperature", s.temperature},
            {"top_k", s.top_k},
            {"top_p", s.top_p},
            {"min_p", s.min_p},
            {"repeat_penalty", s.repeat_penalty},
            {"presence_penalty", s.presence_penalty},
            {"frequency_penalty", s.frequency_penalty},
            {"penalty_window", s.penalty_window},
            {"seed", big(s.seed)}};
}

SamplerSettings sampler_from_json(const QJsonObject& json) {
    SamplerSettings s;
    s.temperature = static_cast<float>(json["temperature"].toDouble(s.temperature));
    s.top_k = json["top_k"].toInt(s.top_k);
    s.top_p = static_cast<float>(json["top_p"].toDouble(s.top_p));
    s.min_p = static_cast<float>(json["min_p"].toDouble(s.min_p));
    s.repeat_penalty = static_cast<float>(json["repeat_penalty"].toDouble(s.repeat_penalty));
    s.presence_penalty = static_cast<float>(json["presence_penalty"].toDouble(s.presence_penalty));
    s.frequency_penalty =
        static_cast<float>(json["frequency_penalty"].toDouble(s.frequency_penalty));
    s.penalty_window = json["penalty_window"].toInt(s.penalty_window);
    s.seed = big(json["seed"]);
    return s;
}

QJsonObject settings_to_json(const ConversationSettings& settings) {
    // null: the template's default. Settings stored before this key existed read the same way.
    const QJsonValue thinking = settings.enable_thinking ? QJsonValue(*settings.enable_thinking)
                                                         : QJsonValue(QJsonValue::Null);
    return {{"system_prompt", settings.system_prompt},
            {"sampler", sampler_to_json(settings.sampler)},
            {"max_tokens", settings.max_tokens},
            {"context_length", settings.context_length},
            {"overflow", static_cast<int>(settings.overflow)},
            {"json_mode", settings.json_mode},
            {"random_seed", settings.random_seed},
            {"enable_thinking", thinking},
            {"reasoning_effort", settings.reasoning_effort}};
}

ConversationSettings settings_from_json(const QJsonObject& json) {
    ConversationSettings settings;
    settings.system_prompt = json["system_prompt"].toString();
    settings.sampler = sampler_from_json(json["sampler"].toObject());
    settings.max_tokens = json["max_tokens"].toInt(settings.max_tokens);
    settings.context_length = json["context_length"].toInt(settings.context_length);
    const int overflow = json["overflow"].toInt(static_cast<int>(settings.overflow));
    if (overflow >= 0 && overflow <= 2) settings.overflow = static_cast<OverflowPolicy>(overflow);
    settings.json_mode = json["json_mode"].toBool(settings.json_mode);
    settings.random_seed = json["random_seed"].toBool(settings.random_seed);
    if (json["enable_thinking"].isBool())
        settings.enable_thinking = json["enable_thinking"].toBool();
    // An imported file is not trusted to hold one of the levels a template understands.
    const QString effort = json["reasoning_effort"].toString();
    if (effort == "low" || effort == "medium" || effort == "high")
        settings.reasoning_effort = effort;
    return settings;
}

QJsonObject stats_to_json(const GenerationStats& stats) {
    QJsonArray times;
    for (const int64_t time : stats.token_times_ns) times.append(static_cast<double>(time));
    return {{"prompt_tokens", stats.prompt_tokens},
            {"cached_tokens", stats.cached_tokens},
            {"prefilled_tokens", stats.prefilled_tokens},
            {"prefill_ns", static_cast<double>(stats.prefill_ns)},
            {"time_to_first_token_ns", static_cast<double>(stats.time_to_first_token_ns)},
            {"generated_tokens", stats.generated_tokens},
            {"decode_ns", static_cast<double>(stats.decode_ns)},
            {"token_times_ns", times},
            {"draft_tokens", stats.draft_tokens},
            {"accepted_draft_tokens", stats.accepted_draft_tokens},
            {"dropped_tokens", stats.dropped_tokens},
            {"stop_reason", static_cast<int>(stats.stop_reason)},
            {"reasoning_tokens", stats.reasoning_tokens},
            {"reasoning_ns", static_cast<double>(stats.reasoning_ns)}};
}

GenerationStats stats_from_json(const QJsonObject& json) {
    GenerationStats stats;
    stats.prompt_tokens = json["prompt_tokens"].toInt();
    stats.cached_tokens = json["cached_tokens"].toInt();
    stats.prefilled_tokens = json["prefilled_tokens"].toInt();
    stats.prefill_ns = static_cast<int64_t>(json["prefill_ns"].toDouble());
    stats.time_to_first_token_ns = static_cast<int64_t>(json["time_to_first_token_ns"].toDouble());
    stats.generated_tokens = json["generated_tokens"].toInt();
    stats.decode_ns = static_cast<int64_t>(json["decode_ns"].toDouble());
    for (const auto& time : json["token_times_ns"].toArray())
        stats.token_times_ns.push_back(static_cast<int64_t>(time.toDouble()));
    stats.draft_tokens = json["draft_tokens"].toInt();
    stats.accepted_draft_tokens = json["accepted_draft_tokens"].toInt();
    stats.dropped_tokens = json["dropped_tokens"].toInt();
    stats.reasoning_tokens = json["reasoning_tokens"].toInt();
    stats.reasoning_ns = static_cast<int64_t>(json["reasoning_ns"].toDouble());
    stats.stop_reason = static_cast<StopReason>(json["stop_reason"].toInt());
    return stats;
}

QJsonObject generation_to_json(const GenerationRecord& record) {
    QJsonObject json{{"model_file", record.model_file},
                     {"model_sha256", record.model_sha256},
                     {"backend", record.backend},
                     {"seed", big(record.seed)},
                     {"sampler", sampler_to_json(record.sampler)},
                     {"stats", stats_to_json(record.stats)}};
    // Only a remote answer has these: a local answer's export stays as it always was.
    if (record.remote()) {
        json["connection"] = record.connection;
        json["connection_url"] = record.connection_url;
        json["remote_model"] = record.remote_model;
    }
    return json;
}

GenerationRecord generation_from_json(const QJsonObject& json) {
    GenerationRecord record;
    record.model_file = json["model_file"].toString();
    record.model_sha256 = json["model_sha256"].toString();
    record.backend = json["backend"].toString();
    record.connection = json["connection"].toString();  // absent for a local answer
    record.connection_url = json["connection_url"].toString();
    record.remote_model = json["remote_model"].toString();
    record.seed = big(json["seed"]);
    record.sampler = sampler_from_json(json["sampler"].toObject());
    record.stats = stats_from_json(json["stats"].toObject());
    return record;
}

QByteArray conversation_to_json(const Conversation& conversation) {
    QJsonArray messages;
    for (const auto& message : conversation.messages()) {
        QJsonObject item{{"id", message.id},
                         {"parent", message.parent},
                         {"role", message.role},
                         {"text", message.text},
                         {"created", static_cast<double>(message.created_ms)},
                         {"finished", message.finished}};
        if (!message.reasoning.isEmpty()) item["reasoning"] = message.reasoning;
        if (message.generation) item["generation"] = generation_to_json(*message.generation);
        messages.append(item);
    }
    const QJsonObject root{{"format", "hearth-conversation"},
                           {"version", 1},
                           {"title", conversation.title()},
                           {"created", static_cast<double>(conversation.created_ms())},
                           {"settings", settings_to_json(conversation.settings())},
                           {"messages", messages}};
    return QJsonDocument(root).toJson(QJsonDocument::Indented);
}

Conversation conversation_from_json(const QByteArray& json) {
    QJsonParseError error{};
    const auto document = QJsonDocument::fromJson(json, &error);
    if (error.error != QJsonParseError::NoError) {
        throw std::invalid_argument("not a JSON file: " + error.errorString().toStdString() +
                                    " at byte " + std::to_string(error.offset));
    }
    const auto root = document.object();
    if (root["format"].toString() != "hearth-conversation" || root["version"].toInt() != 1) {
        throw std::invalid_argument(
            "not a Hearth conversation (format hearth-conversation, "
            "version 1)");
    }
    Conversation conversation(0, root["title"].toString());
    conversation.set_created_ms(static_cast<qint64>(root["created"].toDouble()));
    conversation.settings() = settings_from_json(root["settings"].toObject());
    for (const auto& value : root["messages"].toArray()) {
        const auto item = value.toObject();
        Message message;
        message.id = item["id"].toInt();
        message.parent = item["parent"].toInt(-1);
        message.role = item["role"].toString();
        message.text = item["text"].toString();
        message.reasoning = item["reasoning"].toString();  // absent before reasoning was kept
        message.created_ms = static_cast<qint64>(item["created"].toDouble());
        message.finished = item["finished"].toBool(true);
        if (item.contains("generation"))
            message.generation = generation_from_json(item["generation"].toObject());
        if (message.id <= 0 || (message.role != "user" && message.role != "assistant") ||
            (message.parent != -1 && conversation.find(message.parent) == nullptr) ||
            conversation.find(message.id) != nullptr) {
            throw std::invalid_argument("message " + std::to_string(message.id) +
                                        " is malformed or refers to a message before it");
        }
        conversation.restore(std::move(message));
    }
    return conversation;
}

QString conversation_to_markdown(const Conversation& conversation) {
    QString text = QStringLiteral("# %1\n\n").arg(conversation.title());
    if (!conversation.settings().system_prompt.isEmpty()) {
        text += QStringLiteral("*System:* %1\n\n").arg(conversation.settings().system_prompt);
    }
    for (const int id : conversation.thread()) {
        const Message* message = conversation.find(id);
        text += message->role == "user" ? QStringLiteral("## You\n\n")
                                        : QStringLiteral("## Hearth\n\n");
        text += message->text + QStringLiteral("\n\n");
    }
    return text;
}

}  // namespace hearth::core
