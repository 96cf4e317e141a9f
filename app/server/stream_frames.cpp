#include "app/server/stream_frames.h"

#include "app/server/json_text.h"

namespace hearth::server {

using jinja::Value;

std::string sse_event(std::string_view payload) {
    std::string event = "data: ";
    event.append(payload);
    event.append("\n\n");
    return event;
}

StreamFrames::StreamFrames(ResponseIdentity identity, bool include_usage)
    : m_identity(std::move(identity)), m_include_usage(include_usage) {}

Value StreamFrames::choice(std::string_view text, bool role, const std::string* finish) const {
    const Value finish_reason = finish ? Value(*finish) : Value(jinja::None{});
    jinja::Object choice;
    if (m_identity.endpoint == Endpoint::Completions) {
        choice.set("text", Value(std::string(text)));
        choice.set("index", Value(0));
    } else {
        jinja::Object delta;
        if (role) delta.set("role", Value("assistant"));
        if (role || !text.empty()) delta.set("content", Value(std::string(text)));
        choice.set("index", Value(0));
        choice.set("delta", Value(std::move(delta)));
    }
    choice.set("logprobs", Value(jinja::None{}));
    choice.set("finish_reason", finish_reason);
    return Value(std::move(choice));
}

Value StreamFrames::reasoning_choice(std::string_view reasoning) const {
    jinja::Object delta;
    delta.set("reasoning_content", Value(std::string(reasoning)));
    jinja::Object choice;
    choice.set("index", Value(0));
    choice.set("delta", Value(std::move(delta)));
    choice.set("logprobs", Value(jinja::None{}));
    choice.set("finish_reason", Value(jinja::None{}));
    return Value(std::move(choice));
}

jinja::Object StreamFrames::chunk_envelope() const {
    const bool chat = m_identity.endpoint == Endpoint::ChatCompletions;
    return envelope(m_identity, chat ? "chat.completion.chunk" : "text_completion");
}

std::string StreamFrames::chunk(Value choice) const {
    jinja::Object body = chunk_envelope();
    body.set("choices", Value(jinja::Array{std::move(choice)}));
    if (m_include_usage) body.set("usage", Value(jinja::None{}));
    return sse_event(compact_json(Value(std::move(body))));
}

std::string StreamFrames::opening() const {
    if (m_identity.endpoint == Endpoint::Completions) return {};
    return chunk(choice("", true, nullptr));
}

std::string StreamFrames::text(std::string_view text) const {
    if (text.empty()) return {};
    return chunk(choice(text, false, nullptr));
}

std::string StreamFrames::text(const TokenChunk& chunk) const {
    std::string frames;
    if (!chunk.reasoning.empty() && m_identity.endpoint == Endpoint::ChatCompletions)
        frames = this->chunk(reasoning_choice(chunk.reasoning));
    return frames + text(chunk.text);
}

std::string StreamFrames::closing(const GenerationResult& result) const {
    const std::string reason = finish_reason(result.stats.stop_reason);
    std::string frames = chunk(choice("", false, &reason));
    if (m_include_usage) {
        jinja::Object body = chunk_envelope();
        body.set("choices", Value(jinja::Array{}));
        body.set("usage", usage_json(result.stats));
        frames += sse_event(compact_json(Value(std::move(body))));
    }
    frames += kSseDone;
    return frames;
}

std::string StreamFrames::failure(const ApiError& error) const {
    return sse_event(error.body()) + std::string(kSseDone);
}

}  // namespace hearth::server
