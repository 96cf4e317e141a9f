// System prompts kept under a name, to pick for a conversation and to start new chats with
// (Settings → This conversation). They live in the app's settings.
#pragma once

#include <QString>

#include <vector>

namespace hearth::core {

struct SystemPromptPreset {
    QString name;
    QString text;

    bool operator==(const SystemPromptPreset&) const = default;
};

// Saves `text` as preset `name`, replacing the one of that name (that is how a preset is
// edited); a new name goes last. A name of only spaces saves nothing.
void save_preset(std::vector<SystemPromptPreset>& presets, const QString& name,
                 const QString& text);
void delete_preset(std::vector<SystemPromptPreset>& presets, const QString& name);
// The text of preset `name`; empty when there is none (no name: no system prompt).
QString preset_text(const std::vector<SystemPromptPreset>& presets, const QString& name);

}  // namespace hearth::core
