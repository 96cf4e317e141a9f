// Streamed chat answers exactly as real OpenAI-compatible servers frame them, written down by
// hand from their documentation and source: vLLM (FastAPI, "data: …\n\n", a usage-only final
// chunk with empty choices), llama.cpp's server (role chunk with null content, usage in the
// finish chunk), Ollama's OpenAI endpoint (role in every delta, `reasoning` deltas), and the
// same answer through a proxy that rewrites line ends to CRLF and adds keep-alive comments.
#pragma once

#include <string>
#include <vector>

namespace hearth::test {

struct ServerStream {
    std::string server;
    std::string bytes;  // the response body, byte for byte
    // What a client must read from it.
    std::string content;
    std::string reasoning;
    std::string finish_reason;
    int prompt_tokens = 0;
    int completion_tokens = 0;
    int cached_tokens = 0;
    int content_events = 0;  // events that carry answer or reasoning text
};

const std::vector<ServerStream>& server_streams();

}  // namespace hearth::test
