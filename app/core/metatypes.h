// Engine and application types that travel through queued signals between the GUI and the
// engine thread.
#pragma once

#include <QMetaType>

#include "app/core/conversation.h"
#include "app/core/remote_connection.h"
#include "engine/generation/generation_request.h"
#include "engine/model/model_info.h"
#include "engine/runtime/chat_request.h"
#include "engine/serving/batch_scheduler.h"

Q_DECLARE_METATYPE(hearth::ChatRequest)
Q_DECLARE_METATYPE(hearth::TokenChunk)
Q_DECLARE_METATYPE(hearth::GenerationStats)
Q_DECLARE_METATYPE(hearth::GenerationResult)
Q_DECLARE_METATYPE(hearth::ModelInfo)
Q_DECLARE_METATYPE(hearth::TemplateChoices)
Q_DECLARE_METATYPE(hearth::SchedulerCounters)
Q_DECLARE_METATYPE(hearth::core::Conversation)
Q_DECLARE_METATYPE(hearth::core::RemoteChoice)
