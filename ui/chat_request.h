// What the window asks the engine for: one answer to a conversation's visible thread.
#pragma once

#include <QMetaType>
#include <QString>

#include <utility>
#include <vector>

#include "ui/conversation.h"

namespace hearth::ui {

struct ChatRequest {
    int conversation = 0;
    std::vector<std::pair<QString, QString>> messages;  // (role, text), oldest first
    ConversationSettings settings;
};

}  // namespace hearth::ui

Q_DECLARE_METATYPE(hearth::ui::ChatRequest)
