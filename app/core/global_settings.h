// Settings that apply to the whole app (the per-conversation ones live with each conversation).
#pragma once

#include <QString>
#include <QStringList>

namespace hearth::core {

enum class Theme { System = 0, Light = 1, Dark = 2 };

struct GlobalSettings {
    int threads = 0;       // 0: one per core
    int chunk_tokens = 8;  // decode-loop hand-off size
    bool speculative = false;
    QString backend = QStringLiteral("auto");  // "auto", "cpu" or "vulkan:N"
    // The KV cache type in the engine's words ("f16" or "q8_0"); the engine decides per model
    // whether it can have it.
    QString kv_cache = QStringLiteral("f16");
    Theme theme = Theme::System;
    int font_size = 11;
    QStringList model_folders;  // added by the user
    QString last_model;

    bool operator==(const GlobalSettings&) const = default;
};

}  // namespace hearth::core
