#include "app/core/system_prompt_presets.h"

#include <algorithm>

namespace hearth::core {
namespace {

auto named(const QString& name) {
    return [name](const SystemPromptPreset& preset) { return preset.name == name; };
}

}  // namespace

void save_preset(std::vector<SystemPromptPreset>& presets, const QString& name,
                 const QString& text) {
    const QString trimmed = name.simplified();
    if (trimmed.isEmpty()) return;
    const auto found = std::find_if(presets.begin(), presets.end(), named(trimmed));
    if (found != presets.end()) {
        found->text = text;
    } else {
        presets.push_back({trimmed, text});
    }
}

void delete_preset(std::vector<SystemPromptPreset>& presets, const QString& name) {
    std::erase_if(presets, named(name));
}

QString preset_text(const std::vector<SystemPromptPreset>& presets, const QString& name) {
    const auto found = std::find_if(presets.begin(), presets.end(), named(name));
    return found != presets.end() ? found->text : QString();
}

}  // namespace hearth::core
