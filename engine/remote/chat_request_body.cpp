#include "engine/remote/chat_request_body.h"

#include "engine/text/jinja/json.h"

namespace hearth::remote {
namespace {

using jinja::Array;
using jinja::Object;
using jinja::Value;

Value tool_call_value(const ToolCall& call) {
    Object function;
    function.set("name", call.name);
    function.set("arguments", call.arguments);  // the API's arguments are always JSON text
    Object value;
    if (!call.id.empty()) value.set("id", call.id);
    value.set("type", "function");
    value.set("function", std::move(function));
    return value;
}

Value content_value(const ChatMessage& message) {
    if (!message.content_parts) return message.content;
    Array parts;
    for (const std::string& text : *message.content_parts) {
        Object part;
        part.set("type", "text");
        part.set("text", text);
        parts.emplace_back(std::move(part));
    }
    return parts;
}

Value message_value(const ChatMessage& message) {
    Object value;
    value.set("role", message.role);
    value.set("content", content_value(message));
    // The field vLLM, llama.cpp and DeepSeek read back; the server's template decides its use.
    if (!message.reasoning.empty()) value.set("reasoning_content", message.reasoning);
    if (!message.tool_calls.empty()) {
        Array calls;
        for (const ToolCall& call : message.tool_calls) calls.push_back(tool_call_value(call));
        value.set("tool_calls", std::move(calls));
    }
    if (!message.tool_call_id.empty()) value.set("tool_call_id", message.tool_call_id);
    if (!message.name.empty()) value.set("name", message.name);
    return value;
}

Value response_format(const ChatRequest& request) {
    Object format;
    if (request.json_schema) {
        Object schema;
        schema.set("name", "answer");
        schema.set("schema", jinja::parse_json(*request.json_schema));
        format.set("type", "json_schema");
        format.set("json_schema", std::move(schema));
    } else {
        format.set("type", "json_object");
    }
    return format;
}

// The sampler's settings: OpenAI's fields, then the common extensions where they are switched on.
void set_sampling(const SamplerSettings& sampler, bool fresh_seed, Object& body,
                  ChatRequestBody& out) {
    body.set("temperature", static_cast<double>(sampler.greedy() ? 0.0f : sampler.temperature));
    if (sampler.greedy()) return;  // the other settings only shape sampling
    body.set("top_p", static_cast<double>(sampler.top_p));
    if (!fresh_seed) body.set("seed", static_cast<int64_t>(sampler.seed));
    if (sampler.presence_penalty != 0.0f) {
        body.set("presence_penalty", static_cast<double>(sampler.presence_penalty));
    }
    if (sampler.frequency_penalty != 0.0f) {
        body.set("frequency_penalty", static_cast<double>(sampler.frequency_penalty));
    }
    if (sampler.top_k > 0) {
        body.set("top_k", sampler.top_k);
        out.extensions.emplace_back("top_k");
    }
    if (sampler.min_p > 0.0f) {
        body.set("min_p", static_cast<double>(sampler.min_p));
        out.extensions.emplace_back("min_p");
    }
    if (sampler.repeat_penalty != 1.0f) {
        body.set("repeat_penalty", static_cast<double>(sampler.repeat_penalty));
        out.extensions.emplace_back("repeat_penalty");
    }
    const bool penalised = sampler.repeat_penalty != 1.0f || sampler.presence_penalty != 0.0f ||
                           sampler.frequency_penalty != 0.0f;
    if (penalised) out.not_sent.emplace_back("penalty window");
}

void set_template_choices(const ChatRequest& request, Object& body, ChatRequestBody& out) {
    if (request.reasoning_effort) body.set("reasoning_effort", *request.reasoning_effort);
    Object kwargs;
    if (request.enable_thinking) kwargs.set("enable_thinking", *request.enable_thinking);
    for (const auto& [name, value] : request.template_variables.entries()) kwargs.set(name, value);
    if (kwargs.size() > 0) {
        body.set("chat_template_kwargs", std::move(kwargs));
        out.extensions.emplace_back("chat_template_kwargs");
    }
    if (!request.tools.is_none() && !request.tools.is_undefined()) body.set("tools", request.tools);
    if (request.continue_final_message) {
        // vLLM's names; llama.cpp's server continues a final assistant message by itself.
        body.set("continue_final_message", true);
        body.set("add_generation_prompt", false);
        out.extensions.emplace_back("continue_final_message");
    }
}

}  // namespace

ChatRequestBody chat_request_body(const std::string& model, const ChatRequest& request,
                                  bool stream) {
    ChatRequestBody out;
    Object body;
    body.set("model", model);
    Array messages;
    for (const ChatMessage& message : request.messages) messages.push_back(message_value(message));
    body.set("messages", std::move(messages));
    body.set("max_tokens", request.max_tokens);
    set_sampling(request.sampler, request.fresh_seed, body, out);
    if (!request.stop_strings.empty()) {
        Array stops(request.stop_strings.begin(), request.stop_strings.end());
        body.set("stop", std::move(stops));
    }
    if (request.json_mode || request.json_schema)
        body.set("response_format", response_format(request));
    set_template_choices(request, body, out);
    if (stream) {
        body.set("stream", true);
        Object options;
        options.set("include_usage", true);
        body.set("stream_options", std::move(options));
    }
    out.json = jinja::dump_json(body, {.item_separator = ",", .key_separator = ":"});
    return out;
}

}  // namespace hearth::remote
