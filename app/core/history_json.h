// Conversations, their settings and generation records as JSON: what the history database
// stores in its settings and stats columns, and the export/import format. Exporting and
// importing round-trips exactly.
#pragma once

#include <QByteArray>
#include <QJsonObject>

#include "app/core/conversation.h"

namespace hearth::core {

QJsonObject settings_to_json(const ConversationSettings& settings);
ConversationSettings settings_from_json(const QJsonObject& json);
QJsonObject sampler_to_json(const SamplerSettings& sampler);
SamplerSettings sampler_from_json(const QJsonObject& json);
QJsonObject stats_to_json(const GenerationStats& stats);
GenerationStats stats_from_json(const QJsonObject& json);
QJsonObject generation_to_json(const GenerationRecord& record);
GenerationRecord generation_from_json(const QJsonObject& json);

// {"format": "hearth-conversation", "version": 1, "title", "created", "settings", "messages"}
QByteArray conversation_to_json(const Conversation& conversation);
// Throws std::invalid_argument naming what is wrong with the file.
Conversation conversation_from_json(const QByteArray& json);
// A readable transcript: the visible branch, headed by the title.
QString conversation_to_markdown(const Conversation& conversation);

}  // namespace hearth::core
