// A model family as its makers write it ("Gemma 3", "Phi-3"), for the picker and the window;
// GGUF files name it in lower case ("gemma3", "phi3").
#pragma once

#include <string>
#include <string_view>

namespace hearth {

// The family's usual name, or the file's own where Hearth does not know it.
std::string architecture_text(std::string_view architecture);

}  // namespace hearth
