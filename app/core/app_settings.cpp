#include "app/core/app_settings.h"

#include <QSettings>

#include <algorithm>

#include "engine/serving/batch_scheduler.h"

namespace hearth::core {
namespace {

// A connection without a name or an address (a hand-edited file) is left out: nothing could
// reach it, and its name would not find its key.
std::vector<RemoteConnection> load_connections(QSettings& store) {
    std::vector<RemoteConnection> connections;
    const int count = store.beginReadArray("remote/connections");
    for (int i = 0; i < count; ++i) {
        store.setArrayIndex(i);
        RemoteConnection connection{
            .name = store.value("name").toString(),
            .base_url = store.value("baseUrl").toString(),
            .trusted_certificate = store.value("trustedCertificate").toString()};
        if (!connection.name.isEmpty() && !connection.base_url.isEmpty())
            connections.push_back(std::move(connection));
    }
    store.endArray();
    return connections;
}

void save_connections(QSettings& store, const std::vector<RemoteConnection>& connections) {
    store.remove("remote/connections");  // a shorter list must not keep the old tail
    store.beginWriteArray("remote/connections", static_cast<int>(connections.size()));
    for (size_t i = 0; i < connections.size(); ++i) {
        store.setArrayIndex(static_cast<int>(i));
        store.setValue("name", connections[i].name);
        store.setValue("baseUrl", connections[i].base_url);
        store.setValue("trustedCertificate", connections[i].trusted_certificate);
    }
    store.endArray();
}

}  // namespace

GlobalSettings load_global_settings() {
    QSettings store;
    GlobalSettings defaults;
    GlobalSettings settings;
    // Values out of range (a hand-edited file) fall back to the defaults.
    const auto bounded = [&](const char* key, int low, int high, int fallback) {
        const int value = store.value(key, fallback).toInt();
        return value >= low && value <= high ? value : fallback;
    };
    settings.threads = bounded("engine/threads", 0, 1024, defaults.threads);
    settings.chunk_tokens = bounded("engine/chunkTokens", 1, 256, defaults.chunk_tokens);
    settings.speculative = store.value("engine/speculative", defaults.speculative).toBool();
    settings.draft_model = store.value("engine/draftModel").toString();
    settings.backend = store.value("engine/backend", defaults.backend).toString();
    settings.kv_cache = store.value("engine/kvCache", defaults.kv_cache).toString();
    settings.theme = static_cast<Theme>(bounded("appearance/theme", 0, 2, 0));
    settings.font_size = bounded("appearance/fontSize", 6, 40, defaults.font_size);
    settings.model_folders = store.value("models/folders").toStringList();
    settings.last_model = store.value("models/last").toString();
    settings.server.port = bounded("server/port", 0, 65535, defaults.server.port);
    settings.server.rows =
        bounded("server/rows", 1, SchedulerOptions::kMaxRows, defaults.server.rows);
    const QString key = store.value("server/apiKey").toString();
    settings.server.api_key = valid_api_key(key) ? key : defaults.server.api_key;
    settings.server.keep_in_history =
        store.value("server/keepInHistory", defaults.server.keep_in_history).toBool();
    const int presets = store.beginReadArray("prompts/presets");
    for (int i = 0; i < presets; ++i) {
        store.setArrayIndex(i);
        save_preset(settings.system_prompts, store.value("name").toString(),
                    store.value("text").toString());
    }
    store.endArray();
    settings.new_chat_prompt = store.value("prompts/newChat").toString();
    settings.connections = load_connections(store);
    settings.remote_connection = store.value("remote/inUse/connection").toString();
    settings.remote_model = store.value("remote/inUse/model").toString();
    return settings;
}

void save_global_settings(const GlobalSettings& settings) {
    QSettings store;
    store.setValue("engine/threads", settings.threads);
    store.setValue("engine/chunkTokens", settings.chunk_tokens);
    store.setValue("engine/speculative", settings.speculative);
    store.setValue("engine/draftModel", settings.draft_model);
    store.setValue("engine/backend", settings.backend);
    store.setValue("engine/kvCache", settings.kv_cache);
    store.setValue("appearance/theme", static_cast<int>(settings.theme));
    store.setValue("appearance/fontSize", settings.font_size);
    store.setValue("models/folders", settings.model_folders);
    store.setValue("models/last", settings.last_model);
    store.setValue("server/port", settings.server.port);
    store.setValue("server/rows", settings.server.rows);
    store.setValue("server/apiKey", settings.server.api_key);
    store.setValue("server/keepInHistory", settings.server.keep_in_history);
    store.remove("prompts/presets");  // a shorter list must not keep the old tail
    store.beginWriteArray("prompts/presets", static_cast<int>(settings.system_prompts.size()));
    for (size_t i = 0; i < settings.system_prompts.size(); ++i) {
        store.setArrayIndex(static_cast<int>(i));
        store.setValue("name", settings.system_prompts[i].name);
        store.setValue("text", settings.system_prompts[i].text);
    }
    store.endArray();
    store.setValue("prompts/newChat", settings.new_chat_prompt);
    save_connections(store, settings.connections);
    store.setValue("remote/inUse/connection", settings.remote_connection);
    store.setValue("remote/inUse/model", settings.remote_model);
}

bool valid_api_key(const QString& key) {
    return std::all_of(key.begin(), key.end(),
                       [](QChar c) { return c.unicode() > 0x20 && c.unicode() < 0x7f; });
}

}  // namespace hearth::core
