#include "app/phrasing/load_error_text.h"

#include <regex>

namespace hearth {
namespace {

// The message without the path every LoadError starts with: the row already names the file.
std::string without_path(std::string_view message, std::string_view path) {
    const std::string prefix = std::string(path) + ": ";
    if (!path.empty() && message.starts_with(prefix)) message.remove_prefix(prefix.size());
    return std::string(message);
}

}  // namespace

std::string load_error_text(std::string_view message, std::string_view path) {
    const std::string reason = without_path(message, path);
    // engine/model/architecture.cpp: "architecture 'gpt-oss' (a mixture-of-experts model) is
    // not supported (Hearth runs …)"; the list of what Hearth runs is for the tooltip.
    static const std::regex architecture(
        R"(architecture '([^']+)'( \(([^)]*)\))? is not supported)");
    // engine/format/gguf_file.cpp: "tensor '…' has type IQ2_XXS, which Hearth does not support".
    static const std::regex weight_type(R"(has type (\S+), which Hearth does not support)");
    std::smatch found;
    if (std::regex_search(reason, found, architecture)) {
        std::string text = "Refused: unsupported architecture " + found[1].str();
        if (found[3].matched) text += " (" + found[3].str() + ")";
        return text;
    }
    if (std::regex_search(reason, found, weight_type))
        return "Refused: unsupported weight type " + found[1].str();
    if (reason.find("not supported") != std::string::npos) return "Refused: " + reason;
    return "Unreadable: " + reason;
}

}  // namespace hearth
