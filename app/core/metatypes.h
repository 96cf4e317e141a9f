// Engine and application types that travel through queued signals between the GUI and the
// engine thread.
#pragma once

#include <QMetaType>

#include "engine/generation/generation_request.h"
#include "engine/model/model_info.h"
#include "engine/runtime/chat_request.h"

Q_DECLARE_METATYPE(hearth::ChatRequest)
Q_DECLARE_METATYPE(hearth::TokenChunk)
Q_DECLARE_METATYPE(hearth::GenerationResult)
Q_DECLARE_METATYPE(hearth::ModelInfo)
Q_DECLARE_METATYPE(hearth::TemplateChoices)
