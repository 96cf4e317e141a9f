#include "app/phrasing/architecture_text.h"

#include <array>
#include <utility>

namespace hearth {

std::string architecture_text(std::string_view architecture) {
    static constexpr std::array<std::pair<std::string_view, std::string_view>, 8> kNames{{
        {"llama", "Llama"},
        {"qwen2", "Qwen2"},
        {"qwen3", "Qwen3"},
        {"qwen3moe", "Qwen3 MoE"},
        {"gemma2", "Gemma 2"},
        {"gemma3", "Gemma 3"},
        {"phi3", "Phi-3"},
        {"smollm3", "SmolLM3"},
    }};
    for (const auto& [name, text] : kNames) {
        if (name == architecture) return std::string(text);
    }
    return std::string(architecture);
}

}  // namespace hearth
