// The model families Hearth runs, and what a file's `general.architecture` names when it is one
// Hearth does not run yet: the refusal says what that model is, never just "unsupported".
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace hearth {

enum class Architecture { Llama, Qwen2, Qwen3, Qwen3Moe, Gemma2, Gemma3, Phi3, SmolLM3, GptOss };

// The family a GGUF architecture name stands for, if Hearth runs it.
std::optional<Architecture> parse_architecture(std::string_view name);

// Why a file of architecture `name` cannot run: what kind of model it is where Hearth knows,
// and the architectures it does run.
std::string unsupported_architecture_text(std::string_view name);

}  // namespace hearth
