// Settings that apply to the whole app (the per-conversation ones live with each conversation).
#pragma once

#include <QString>
#include <QStringList>

#include <vector>

#include "app/core/remote_connection.h"
#include "app/core/system_prompt_presets.h"

namespace hearth::core {

enum class Theme { System = 0, Light = 1, Dark = 2 };

// The in-process API server (Settings → Server): how it listens and what it keeps.
struct ServerSettings {
    int port = 8080;  // on 127.0.0.1; 0: any free port, chosen at each start
    int rows = 8;     // requests decoded together, 1 to SchedulerOptions::kMaxRows
    // Empty: no key. Set: clients send "Authorization: Bearer KEY". Kept in the settings file
    // as written (it guards a loopback port, not an account).
    QString api_key;
    // Conversations made through the API go into the user's history (titled "API: …") only
    // when this is set.
    bool keep_in_history = false;

    bool operator==(const ServerSettings&) const = default;
};

struct GlobalSettings {
    int threads = 0;       // 0: one per core
    int chunk_tokens = 8;  // decode-loop hand-off size
    bool speculative = false;
    // A smaller model of the same vocabulary that drafts for speculative answers; empty: drafts
    // come from the conversation itself.
    QString draft_model;
    QString backend = QStringLiteral("auto");  // "auto", "cpu" or "vulkan:N"
    // The KV cache type in the engine's words ("f16" or "q8_0"); the engine decides per model
    // whether it can have it.
    QString kv_cache = QStringLiteral("f16");
    Theme theme = Theme::System;
    int font_size = 11;
    QStringList model_folders;  // added by the user
    QString last_model;
    ServerSettings server;
    std::vector<SystemPromptPreset> system_prompts;  // in the order they were saved
    // The preset new chats start with; empty: none. A visible choice in the settings: a new chat
    // does not copy the system prompt of the chat that was open.
    QString new_chat_prompt;
    // Remote engines the user connected to, in the order they were added. Their API keys are
    // not here: ApiKeyStore keeps them, under each connection's name.
    std::vector<RemoteConnection> connections;
    // The remote model answering when the app closed, by its connection's name (the connection
    // itself may have been removed since); both empty: the local model (last_model) answered.
    QString remote_connection;
    QString remote_model;

    bool operator==(const GlobalSettings&) const = default;
};

}  // namespace hearth::core
