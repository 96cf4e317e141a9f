#include "app/server/api_response.h"

#include "app/server/json_text.h"

namespace hearth::server {
namespace {

using jinja::Value;

Value chat_choice(const GenerationResult& result) {
    jinja::Object message;
    message.set("role", Value("assistant"));
    message.set("content", Value(result.text));
    // Where llama-server and DeepSeek's API put the reasoning; absent when the model had none.
    if (!result.reasoning.empty()) message.set("reasoning_content", Value(result.reasoning));
    message.set("refusal", Value(jinja::None{}));
    jinja::Object choice;
    choice.set("index", Value(0));
    choice.set("message", Value(std::move(message)));
    choice.set("logprobs", Value(jinja::None{}));
    choice.set("finish_reason", Value(finish_reason(result.stats.stop_reason)));
    return Value(std::move(choice));
}

Value text_choice(const GenerationResult& result) {
    jinja::Object choice;
    choice.set("text", Value(result.text));
    choice.set("index", Value(0));
    choice.set("logprobs", Value(jinja::None{}));
    choice.set("finish_reason", Value(finish_reason(result.stats.stop_reason)));
    return Value(std::move(choice));
}

}  // namespace

std::string finish_reason(StopReason reason) {
    switch (reason) {
        case StopReason::MaxTokens:
        case StopReason::ContextFull:
            return "length";
        default:
            return "stop";
    }
}

jinja::Value usage_json(const GenerationStats& stats) {
    jinja::Object details;
    details.set("cached_tokens", Value(stats.cached_tokens));
    jinja::Object usage;
    usage.set("prompt_tokens", Value(stats.prompt_tokens));
    usage.set("completion_tokens", Value(stats.generated_tokens));
    usage.set("total_tokens", Value(stats.prompt_tokens + stats.generated_tokens));
    usage.set("prompt_tokens_details", Value(std::move(details)));
    return Value(std::move(usage));
}

jinja::Object envelope(const ResponseIdentity& identity, const std::string& object) {
    jinja::Object out;
    out.set("id", Value(identity.id));
    out.set("object", Value(object));
    out.set("created", Value(identity.created));
    out.set("model", Value(identity.model));
    return out;
}

std::string response_body(const ResponseIdentity& identity, const GenerationResult& result) {
    const bool chat = identity.endpoint == Endpoint::ChatCompletions;
    jinja::Object body = envelope(identity, chat ? "chat.completion" : "text_completion");
    body.set("choices", Value(jinja::Array{chat ? chat_choice(result) : text_choice(result)}));
    body.set("usage", usage_json(result.stats));
    return compact_json(Value(std::move(body)));
}

}  // namespace hearth::server
