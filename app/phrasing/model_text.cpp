#include "app/phrasing/model_text.h"

#include <algorithm>
#include <cctype>

#include "app/phrasing/architecture_text.h"

namespace hearth {
namespace {

bool same_words(std::string a, std::string b) {
    const auto lower = [](std::string& text) {
        std::transform(text.begin(), text.end(), text.begin(),
                       [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    };
    lower(a);
    lower(b);
    return a == b;
}

// The bundled model is llama2.c's stories260K: its metadata names it only "llama".
constexpr const char* kBundledName = "Stories 260K, bundled with Hearth";

std::string model_name(const ModelInfo& info, bool bundled) {
    if (bundled) return kBundledName;
    if (info.name.empty() || same_words(info.name, info.architecture) ||
        same_words(info.name, architecture_text(info.architecture))) {
        return {};
    }
    return info.name;
}

}  // namespace

std::string model_heading_text(const ModelInfo& info, bool bundled) {
    std::string heading = model_name(info, bundled);
    for (const std::string& part :
         {architecture_text(info.architecture), parameters_text(info), info.quantization}) {
        if (part.empty()) continue;
        if (!heading.empty()) heading += " · ";
        heading += part;
    }
    return heading;
}

std::string parameters_text(const ModelInfo& info) {
    const std::string total = parameter_count_text(info.parameters);
    if (info.active_parameters == 0 || info.active_parameters == info.parameters) return total;
    return total + " total, " + parameter_count_text(info.active_parameters) + " active";
}

std::string model_purpose_text(const ModelInfo& info, bool bundled) {
    if (info.has_chat_template) return {};
    if (bundled) {
        return "A tiny story model (" + parameter_count_text(info.parameters) +
               " parameters, trained on children's stories) without a chat template: it "
               "continues the text you write rather than chatting.";
    }
    return "No chat template: this model continues the text you write rather than chatting.";
}

std::string welcome_text(const ModelInfo* info, bool bundled, const ModelSources& sources) {
    std::string text = "Welcome to Hearth. ";
    if (info == nullptr) {
        text += "No model is loaded yet.";
    } else {
        const std::string name = model_name(*info, bundled);
        text += "The model loaded is " +
                (name.empty() ? model_heading_text(*info, bundled) : name) + ". ";
        const std::string purpose = model_purpose_text(*info, bundled);
        text += purpose.empty() ? std::string("Write a message below to start a chat.")
                                : purpose + " Try starting a story, like “Once upon a time”.";
    }
    text +=
        "\n\nTo use another model, open Models… to choose a GGUF file on this computer or "
        "add a folder of them";
    if (!sources.models_folder.empty()) {
        text += ", or put GGUF files in " + sources.models_folder + ", which Hearth always lists";
    }
    return text + ".";
}

}  // namespace hearth
