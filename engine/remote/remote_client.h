// A client of an OpenAI-compatible server (vLLM, llama.cpp's server, Ollama, hearth-server):
// lists its models and streams a chat answer into the same GenerationSink and GenerationResult
// a local answer uses, with the timings measured here (time to first token, per-token times)
// and the server's usage where it reports one. Every failure is a RemoteError naming its cause,
// carrying the part of the answer that had arrived. One request at a time per client; cancel
// from any thread through the flag.
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "engine/generation/generation_request.h"
#include "engine/remote/remote_endpoint.h"
#include "engine/runtime/chat_request.h"

namespace hearth::remote {

struct RemoteAnswer {
    // The answer (text), its reasoning apart (reasoning), client-side timings, the usage's
    // token counts and the stop reason.
    GenerationResult result;
    std::string finish_reason;
    // Settings of the request that the API has no field for, and ones sent in extension
    // fields only some servers read (see ChatRequestBody).
    std::vector<std::string> settings_not_sent;
    std::vector<std::string> settings_as_extensions;
};

class RemoteClient final {
public:
    // Throws RemoteError(BadAddress) for a URL that cannot be used.
    explicit RemoteClient(RemoteEndpoint endpoint);
    ~RemoteClient();
    RemoteClient(const RemoteClient&) = delete;
    RemoteClient& operator=(const RemoteClient&) = delete;

    const ParsedUrl& url() const { return m_url; }

    // GET /models: the ids the server serves. `cancel` becoming true stops the request at once
    // (a RemoteError), so whoever waits for a silent server can give up on it.
    std::vector<std::string> models(const std::atomic<bool>* cancel = nullptr);

    // POST /chat/completions for `model`. Chunks reach `sink` as events arrive (its on_chunk
    // returning false, or `cancel` becoming true, stops the request: the result then says
    // Cancelled). `stream` false asks for one whole answer instead.
    RemoteAnswer chat(const std::string& model, const ChatRequest& request,
                      const GenerationSink& sink = {}, const std::atomic<bool>* cancel = nullptr,
                      bool stream = true);

private:
    struct Exchange;

    RemoteEndpoint m_endpoint;
    ParsedUrl m_url;
};

}  // namespace hearth::remote
