// hearth-server's parts running in a test's own process on a port the system picks, serving the
// smallest shared model on the CPU: what the remote-engine tests talk to over real sockets.
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "app/server/api_server.h"
#include "engine/runtime/engine.h"
#include "engine/serving/batch_scheduler.h"

namespace hearth::test {

inline constexpr const char* kServedModel = "stories260K.gguf";
inline constexpr int kServedContext = 256;

// An engine with `model` (by default the served shared model) loaded on the CPU backend.
std::unique_ptr<Engine> cpu_engine(const std::filesystem::path& model = {}, int threads = 2);

// The conversation the server tests ask about, greedy, at most `max_tokens` answer tokens.
ChatRequest story_request(int max_tokens);

class LocalApiServer final {
public:
    // `model`: a file to serve instead of the shared one (a copy with another chat template).
    explicit LocalApiServer(std::optional<std::string> api_key = std::nullopt,
                            const std::filesystem::path& model = {});
    std::string url() const;  // http://127.0.0.1:PORT/v1
    const BatchScheduler& scheduler() const { return *m_scheduler; }

private:
    std::unique_ptr<Engine> m_engine;
    std::unique_ptr<BatchScheduler> m_scheduler;
    std::unique_ptr<server::ApiServer> m_server;
};

}  // namespace hearth::test
