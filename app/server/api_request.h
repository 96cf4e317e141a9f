// What a /v1/chat/completions or /v1/completions body asks for, read from its JSON into the
// engine's requests. Every field OpenAI's API defines for them that Hearth can honour is read and
// checked (type and range, named by its path on failure); a field asking for what Hearth cannot
// do (n > 1, logprobs, echo) is refused rather than ignored; fields that change nothing about the
// answer (user, metadata, store) are accepted and ignored. All failures are ApiError (400).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "engine/runtime/chat_request.h"
#include "engine/serving/batch_scheduler.h"

namespace hearth::server {

struct RequestLimits {
    int context_length = 0;  // every row's: max_tokens may not exceed it
    size_t max_messages = 1024;
    size_t max_stop_strings = 16;
};

// How the answer goes back, the same for both endpoints.
struct ResponseMode {
    std::optional<std::string> model;  // as the client named it; unset when it named none
    bool stream = false;
    bool include_usage = false;  // stream_options.include_usage: a last chunk with the usage
};

struct ChatCompletionCall {
    ResponseMode mode;
    ChatRequest request;
};

struct TextCompletionCall {
    ResponseMode mode;
    CompletionRequest request;
};

// Both throw ApiError for a body that is not JSON, not valid UTF-8, or has a field of the wrong
// type or out of range. Requests ask for OverflowPolicy::Stop: a client is told its prompt does
// not fit instead of being answered about a silently shortened one.
ChatCompletionCall parse_chat_completion(std::string_view body, const RequestLimits& limits);
TextCompletionCall parse_text_completion(std::string_view body, const RequestLimits& limits);

}  // namespace hearth::server
