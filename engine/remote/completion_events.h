// What an OpenAI-compatible server's answers mean: one streamed chat.completion.chunk (the data
// of one server-sent event), a whole non-streamed chat.completion, and the model list. The
// shapes vLLM, llama.cpp's server, Ollama and hearth-server send are all read: content and
// reasoning (`reasoning_content`, or Ollama's and vLLM's `reasoning`) deltas, usage in a final
// chunk with no choices, and errors sent as events.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hearth::remote {

struct Usage {
    int prompt_tokens = 0;
    int completion_tokens = 0;
    int cached_tokens = 0;  // prompt_tokens_details.cached_tokens, where the server gives it
};

struct CompletionDelta {
    std::string content;
    std::string reasoning;
    std::optional<std::string> finish_reason;
    std::optional<Usage> usage;
    bool done = false;  // the `[DONE]` sentinel
};

// One event's data. Throws RemoteError: MalformedStream naming the event's problem (not JSON,
// no choices, a content that is not text), or the server's own error when the event is one.
CompletionDelta parse_chunk(std::string_view data);

// A whole chat.completion (non-streamed), as one delta holding everything.
CompletionDelta parse_completion(std::string_view body);

// The ids of GET /models. Throws RemoteError(MalformedStream) for another shape.
std::vector<std::string> parse_model_list(std::string_view body);

// The message of an OpenAI-shaped error body ({"error": {"message": …}} or {"error": "…"}), or
// the body itself, cut short, when it has none.
std::string error_message(std::string_view body);

}  // namespace hearth::remote
