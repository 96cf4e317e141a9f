// What the window says a loaded model is: its heading where the model is named, what it does
// with what it is given (a model without a chat template continues text rather than chats), and
// the welcome an empty chat shows. Facts come from ModelInfo; no Qt, like the rest of phrasing.
#pragma once

#include <string>

#include "engine/model/model_info.h"

namespace hearth {

// "Qwen2.5 0.5B Instruct · Qwen2 · 494M · Q4_K_M" (parameters as parameters_text gives them); the
// bundled model by its own name. A name that only repeats the family ("llama") is left out.
std::string model_heading_text(const ModelInfo& info, bool bundled);

// "494M"; for a mixture of experts, what one token reads beside the whole:
// "30.5B total, 3.3B active".
std::string parameters_text(const ModelInfo& info);

// What the model does with a message, when that is not chatting: empty for a model with a chat
// template.
std::string model_purpose_text(const ModelInfo& info, bool bundled);

// The ways to get another model that the welcome names. Issue 24's downloader adds its own
// field and sentence here when it lands; until then the picker and the folder are all there is.
struct ModelSources {
    std::string models_folder;  // Hearth's own, as the app reads it
};

// The welcome of an empty chat: which model is loaded and what it does (`info` null: none is),
// and how to get or open another one.
std::string welcome_text(const ModelInfo* info, bool bundled, const ModelSources& sources);

}  // namespace hearth
