// hearth-server: the loaded model behind an OpenAI-compatible HTTP API, many clients decoded
// together by the batch scheduler. Stops cleanly on SIGINT or SIGTERM.
#include <fmt/format.h>
#include <pthread.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <csignal>
#include <iostream>

#include "app/bundled_model.h"
#include "app/phrasing/notice_text.h"
#include "app/server/api_server.h"
#include "app/server/served_model.h"
#include "app/server/server_options.h"
#include "engine/compute/backend_factory.h"
#include "engine/runtime/engine.h"
#include "engine/serving/batch_scheduler.h"

namespace {

using hearth::server::ServerOptions;

// SIGINT and SIGTERM, blocked in every thread (threads inherit the mask, so this runs before
// any is started) and taken by sigwait() in main: stopping runs as ordinary code, not in a
// signal handler.
sigset_t stop_signals() {
    sigset_t signals;
    sigemptyset(&signals);
    sigaddset(&signals, SIGINT);
    sigaddset(&signals, SIGTERM);
    return signals;
}

hearth::BackendPreference backend_preference(const ServerOptions& options) {
    auto preference = hearth::parse_backend_preference(options.backend);
    preference.threads = options.threads;
    preference.fall_back_to_cpu = false;  // a backend named on the command line is meant
    return preference;
}

int serve(const ServerOptions& options, const sigset_t& signals) {
    hearth::Engine engine(
        {.backends = {.self_test_model = hearth::find_bundled_model().value_or(""),
                      .pipeline_cache = hearth::default_pipeline_cache()},
         .backend = backend_preference(options)});
    const auto model = options.model_path.empty() ? hearth::bundled_model_path()
                                                  : std::filesystem::path(options.model_path);
    engine.load(model, {}, options.context_length);
    const auto report = engine.backend_report();
    if (report.notice) spdlog::warn("{}", hearth::notice_text(*report.notice));

    hearth::BatchScheduler scheduler(
        engine, {.rows = options.rows, .context_length = options.context_length});
    hearth::server::ApiServer server(scheduler,
                                     {.host = options.host,
                                      .port = options.port,
                                      .api_key = options.api_key,
                                      .catalog_folder = hearth::server::hearth_models_folder()});
    server.start();
    spdlog::info("serving {} on http://{}:{} ({} rows, context {} tokens, backend {}{})",
                 model.filename().string(), options.host, server.port(), options.rows,
                 scheduler.context_length(), report.name,
                 options.api_key ? ", API key required" : "");

    int received = 0;
    sigwait(&signals, &received);
    spdlog::info("{}: stopping", received == SIGINT ? "SIGINT" : "SIGTERM");
    server.stop();
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    spdlog::set_default_logger(spdlog::stderr_color_mt("hearth-server"));
    spdlog::set_pattern("%Y-%m-%d %H:%M:%S.%e %l: %v");
    const sigset_t signals = stop_signals();
    pthread_sigmask(SIG_BLOCK, &signals, nullptr);
    try {
        const auto options =
            hearth::server::parse_server_options(std::vector<std::string>(argv + 1, argv + argc));
        if (options.help) {
            std::cout << hearth::server::server_usage();
            return 0;
        }
        return serve(options, signals);
    } catch (const std::invalid_argument& error) {
        fmt::print(stderr, "hearth-server: {}\n\n{}", error.what(), hearth::server::server_usage());
        return 2;
    } catch (const std::exception& error) {
        fmt::print(stderr, "hearth-server: {}\n", hearth::error_text(error));
        return 1;
    }
}
