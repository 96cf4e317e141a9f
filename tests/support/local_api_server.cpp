#include "tests/support/local_api_server.h"

#include "tests/support/shared_data.h"

namespace hearth::test {

std::unique_ptr<Engine> cpu_engine(const std::filesystem::path& model, int threads) {
    auto engine = std::make_unique<Engine>(
        EngineOptions{.backends = {.self_test_model = model_path(kServedModel)},
                      .backend = {.kind = BackendPreference::Kind::Cpu, .threads = threads}});
    engine->load(model.empty() ? model_path(kServedModel) : model);
    return engine;
}

ChatRequest story_request(int max_tokens) {
    return {.messages = {{.role = "system", .content = "You tell stories."},
                         {.role = "user", .content = "Once upon a time"}},
            .context_length = kServedContext,
            .max_tokens = max_tokens,
            .sampler = {.temperature = 0.0f},
            .fresh_seed = false,
            .overflow = OverflowPolicy::Stop};
}

LocalApiServer::LocalApiServer(std::optional<std::string> api_key,
                               const std::filesystem::path& model)
    : m_engine(cpu_engine(model)),
      m_scheduler(std::make_unique<BatchScheduler>(
          *m_engine, SchedulerOptions{.rows = 2, .context_length = kServedContext})) {
    m_server = std::make_unique<server::ApiServer>(
        *m_scheduler,
        server::ApiServerOptions{.host = "127.0.0.1", .port = 0, .api_key = std::move(api_key)});
    m_server->start();
}

std::string LocalApiServer::url() const {
    return "http://127.0.0.1:" + std::to_string(m_server->port()) + "/v1";
}

}  // namespace hearth::test
