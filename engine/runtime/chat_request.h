// One answer to a conversation, as every front end (window, CLI, server) asks the engine for
// it: the messages in the engine's own shape and the generation settings that apply to them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/generation/generation_request.h"
#include "engine/text/chat_template.h"

namespace hearth {

struct ChatRequest {
    // Which conversation: requests with the same id reuse its KV cache (only what follows the
    // prefix it already holds is prefilled).
    int64_t conversation = 0;
    std::vector<ChatMessage> messages;  // the whole thread, oldest first, a system prompt first
    int context_length = 0;             // 0: the model's default (trained length, capped)
    int max_tokens = 512;
    SamplerSettings sampler;
    bool fresh_seed = true;  // a new random seed for this answer instead of sampler.seed
    OverflowPolicy overflow = OverflowPolicy::RollingWindow;
    bool json_mode = false;  // constrain the answer to a JSON object
    // Constrain the answer to this JSON Schema (its text; the subset JsonSchema reads). Set, it
    // implies JSON mode; unsupported parts are refused with SchemaError before anything runs.
    std::optional<std::string> json_schema;
    // The chat template's `enable_thinking` (see ChatTemplate::has_thinking_switch); unset: the
    // template's default, which for the models that read it is to think.
    std::optional<bool> enable_thinking;
    // The chat template's `reasoning_effort` (gpt-oss: "low", "medium" or "high"); unset: its
    // default.
    std::optional<std::string> reasoning_effort;
    // Functions the model may call: OpenAI definitions (see parse_tool_definitions); None: none.
    jinja::Value tools = jinja::Value(jinja::None{});
    // Other variables the template reads (builtin_tools, model_identity, …).
    jinja::Object template_variables;
    std::vector<std::string> stop_strings;
    // The last message is an assistant's answer so far, which the model goes on with (Continue
    // on an answer the token limit cut off) instead of starting a new one.
    bool continue_final_message = false;
};

}  // namespace hearth
