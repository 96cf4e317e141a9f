// A finished answer in OpenAI's response shapes: chat.completion for /v1/chat/completions and
// text_completion for /v1/completions, with their usage and finish reason. The streamed shapes
// (stream_frames.h) share the envelope and the usage built here.
#pragma once

#include <cstdint>
#include <string>

#include "engine/generation/generation_request.h"
#include "engine/text/jinja/value.h"

namespace hearth::server {

enum class Endpoint { ChatCompletions, Completions };

// What every response and chunk of one answer repeats.
struct ResponseIdentity {
    Endpoint endpoint = Endpoint::ChatCompletions;
    std::string id;       // "chatcmpl-…" or "cmpl-…", unique per answer
    int64_t created = 0;  // Unix seconds
    std::string model;    // the id /v1/models lists for the loaded model
};

// "stop" or "length": the answer ran out of room (max_tokens, a full context) or it did not.
std::string finish_reason(StopReason reason);

// {"prompt_tokens", "completion_tokens", "total_tokens", "prompt_tokens_details":
// {"cached_tokens"}}
jinja::Value usage_json(const GenerationStats& stats);

// {"id", "object", "created", "model"}: the start of every body and chunk; `object` names the
// shape ("chat.completion", "chat.completion.chunk", "text_completion").
jinja::Object envelope(const ResponseIdentity& identity, const std::string& object);

// The whole non-streamed response body.
std::string response_body(const ResponseIdentity& identity, const GenerationResult& result);

}  // namespace hearth::server
