#include "engine/model/architecture.h"

#include <array>
#include <utility>

namespace hearth {
namespace {

constexpr std::array<std::pair<std::string_view, Architecture>, 9> kSupported{{
    {"llama", Architecture::Llama},
    {"qwen2", Architecture::Qwen2},
    {"qwen3", Architecture::Qwen3},
    {"qwen3moe", Architecture::Qwen3Moe},
    {"gemma2", Architecture::Gemma2},
    {"gemma3", Architecture::Gemma3},
    {"phi3", Architecture::Phi3},
    {"smollm3", Architecture::SmolLM3},
    {"gpt-oss", Architecture::GptOss},
}};

// Families people download that need machinery Hearth lacks: naming it tells a user that the
// file is fine and what it would take, where "unsupported" alone reads like a broken file.
constexpr std::array<std::pair<std::string_view, std::string_view>, 14> kKnownOthers{{
    {"qwen2moe", "a mixture-of-experts model"},
    {"mixtral", "a mixture-of-experts model"},
    {"llama4", "a mixture-of-experts model with interleaved local attention"},
    {"deepseek2", "a mixture-of-experts model with multi-head latent attention"},
    {"qwen35", "a hybrid linear-attention model"},
    {"qwen3next", "a hybrid linear-attention model"},
    {"gemma3n", "a per-layer-embedding model"},
    {"mamba", "a state-space model"},
    {"mamba2", "a state-space model"},
    {"rwkv6", "a recurrent model"},
    {"rwkv7", "a recurrent model"},
    {"bert", "an embedding model, not a chat model"},
    {"nomic-bert", "an embedding model, not a chat model"},
    {"clip", "a vision encoder (a multimodal projector file), not a chat model"},
}};

}  // namespace

std::optional<Architecture> parse_architecture(std::string_view name) {
    for (const auto& [known, architecture] : kSupported) {
        if (known == name) return architecture;
    }
    return std::nullopt;
}

std::string unsupported_architecture_text(std::string_view name) {
    std::string text = "architecture '" + std::string(name) + "'";
    for (const auto& [known, what] : kKnownOthers) {
        if (known == name) text += " (" + std::string(what) + ")";
    }
    text += " is not supported (Hearth runs";
    for (size_t i = 0; i < kSupported.size(); ++i) {
        text += i == 0 ? " " : i + 1 == kSupported.size() ? " and " : ", ";
        text += kSupported[i].first;
    }
    return text + " models)";
}

}  // namespace hearth
