// One streamed answer as Server-Sent Events, framed exactly as OpenAI frames it, so its own
// clients parse it: each chunk is "data: {json}\n\n"; a chat answer opens with a chunk whose
// delta carries the role; text follows in content deltas (the model's reasoning in
// reasoning_content deltas, as llama-server and DeepSeek stream it); the last chunk has an empty
// delta and the finish reason; with stream_options.include_usage every chunk carries "usage": null
// and one more chunk with no choices carries the usage; "data: [DONE]\n\n" ends the stream. A
// failure after the headers were sent is an {"error": {...}} event, which OpenAI's clients raise.
#pragma once

#include <string>
#include <string_view>

#include "app/server/api_error.h"
#include "app/server/api_response.h"
#include "engine/generation/generation_request.h"

namespace hearth::server {

// "data: <payload>\n\n"
std::string sse_event(std::string_view payload);
inline constexpr std::string_view kSseDone = "data: [DONE]\n\n";

class StreamFrames final {
public:
    StreamFrames(ResponseIdentity identity, bool include_usage);

    // What the stream opens with: chat's role chunk; nothing for /v1/completions.
    std::string opening() const;
    // A chunk carrying `text`; nothing for empty text (a held-back character, say).
    std::string text(std::string_view text) const;
    // The chunks a TokenChunk gives: its reasoning, then its answer text (chat only).
    std::string text(const TokenChunk& chunk) const;
    // The finish chunk, the usage chunk when asked for, and [DONE].
    std::string closing(const GenerationResult& result) const;
    // The error event and [DONE].
    std::string failure(const ApiError& error) const;

private:
    jinja::Object chunk_envelope() const;
    std::string chunk(jinja::Value choice) const;
    jinja::Value choice(std::string_view text, bool role, const std::string* finish) const;
    jinja::Value reasoning_choice(std::string_view reasoning) const;

    ResponseIdentity m_identity;
    bool m_include_usage;
};

}  // namespace hearth::server
