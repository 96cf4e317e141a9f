// The OpenAI-compatible HTTP server in front of a BatchScheduler: POST /v1/chat/completions and
// /v1/completions (streamed as Server-Sent Events or not), GET /v1/models, /health and /metrics.
// hearth-server runs one; the app can run the same in-process. Requests are served on a pool of
// threads sized for every row, every queued request and some spare, so a full queue of streaming
// clients never starves /health or /metrics.
#pragma once

#include <cstddef>
#include <filesystem>
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
