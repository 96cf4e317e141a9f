// Why a model file cannot be used, in the few words a row of the model list has room for
// ("Refused: unsupported weight type IQ2_XXS"); the engine's full message stays in the tooltip.
#pragma once

#include <string>
#include <string_view>

namespace hearth {

// `message` is a LoadError's text, which starts with the file's path; `path` is that path.
// "Refused: …" where the file is sound but Hearth lacks what it needs, "Unreadable: …" where
// the file itself is broken.
std::string load_error_text(std::string_view message, std::string_view path);

}  // namespace hearth
