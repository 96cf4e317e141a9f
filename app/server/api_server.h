// The OpenAI-compatible HTTP server in front of a BatchScheduler: POST /v1/chat/completions and
// /v1/completions (streamed as Server-Sent Events or not), GET /v1/models, /health and /metrics.
// hearth-server runs one; the app can run the same in-process. Requests are served on a pool of
// threads sized for every row, every queued request and some spare, so a full queue of streaming
// clients never starves /health or /metrics.
#pragma once

#include <cstddef>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "engine/serving/batch_scheduler.h"

namespace hearth::server {

struct ApiServerOptions {
    std::string host = "127.0.0.1";
    int port = 8080;  // 0: any free port (see ApiServer::port)
    // Set: every request must carry "Authorization: Bearer KEY", or it gets 401 and nothing else.
    std::optional<std::string> api_key;
    size_t max_body_bytes = size_t{8} << 20;   // larger bodies get 413
    size_t max_head_bytes = size_t{32} << 10;  // request line and headers; more get 400
    size_t max_messages = 1024;                // per chat request
    std::filesystem::path catalog_folder;      // its .gguf files are listed by /v1/models
    // Told of every /v1/chat/completions answer that ran to its end (not one its client
    // abandoned or stop() cut short, nor one that failed), with the request as the server read
    // it and the result, streamed or not. Called on the thread serving that request, once the
    // answer is complete and before its response ends (the last SSE chunk, or the JSON body):
    // it must be quick and must not block, so a front end copies what it needs and hands it to
    // its own thread (the app queues it to the GUI thread). Several requests' threads may call
    // it at once. What it throws is logged and dropped. Unset: nothing is told.
    std::function<void(const ChatRequest&, const GenerationResult&)> on_chat_answered;
};

class ApiServer final {
public:
    // `scheduler` must outlive the server; the server stops it in stop().
    ApiServer(BatchScheduler& scheduler, ApiServerOptions options);
    ~ApiServer();  // stop()
    ApiServer(const ApiServer&) = delete;
    ApiServer& operator=(const ApiServer&) = delete;

    // Binds host:port and serves from its own threads until stop(). Throws std::runtime_error
    // naming the address when it cannot bind (in use, not an address of this machine).
    void start();
    // The port it listens on: options.port, or the one the system chose for 0.
    int port() const;
    // Stops the scheduler (queued requests get 503, running answers end), lets the answers being
    // streamed write their last chunk and [DONE], then closes the listening socket and joins the
    // server's threads. Idempotent.
    void stop();

private:
    struct State;
    std::unique_ptr<State> m_state;
};

}  // namespace hearth::server
