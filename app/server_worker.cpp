#include "app/server_worker.h"

#include <spdlog/spdlog.h>

#include "app/bundled_model.h"
#include "app/core/api_conversation.h"
#include "app/phrasing/notice_text.h"
#include "app/server/served_model.h"
#include "engine/compute/backend_factory.h"
#include "engine/model/load_error.h"

namespace hearth {
namespace {

constexpr std::chrono::seconds kCounterInterval{1};

QString text(const std::string& words) {
    return QString::fromStdString(words);
}

// The window's backend choice, as InferenceWorker::configure reads it; a GPU that cannot be used
// leaves the server on the CPU, as it leaves the window.
BackendPreference backend_preference(const ServerLaunch& launch) {
    auto preference = backend_preference_from_setting(launch.backend.toStdString());
    preference.threads = launch.threads;
    preference.spare_threads = 1;  // for the GUI thread, as the window's engine leaves one
    preference.kv_cache = kv_cache_type_from_setting(launch.kv_cache.toStdString());
    return preference;
}

}  // namespace

ServerWorker::ServerWorker(const std::atomic<bool>& cancel_start) : m_cancel_start(cancel_start) {
    m_tick.setParent(this);  // moves to the server's thread with the worker
    m_tick.setInterval(kCounterInterval);
    connect(&m_tick, &QTimer::timeout, this, &ServerWorker::publish_counters);
}

ServerWorker::~ServerWorker() {
    release();
}

void ServerWorker::start(const ServerLaunch& launch) {
    if (m_api) return;  // already serving: the controller asks for a stop first
    try {
        serve(launch);
    } catch (const LoadCancelled&) {
        release();
        emit stopped({});
        return;
    } catch (const std::exception& error) {
        release();
        emit stopped(text(error_text(error)));
        return;
    }
    publish_counters();
    m_tick.start();
    emit started(m_api->port(), text(m_engine->backend_report().name));
}

// A second Engine on the same file. Its weights are not held twice: loads of an unchanged file
// in one process share one copy (MappedFile), as maps of it share the kernel's pages, and the
// CPU backend reads the weights in place. Only a GPU backend uploads its own copy to the device,
// which the engine's memory check counts. What the server adds is its rows' KV caches.
void ServerWorker::serve(const ServerLaunch& launch) {
    m_engine = std::make_unique<Engine>(
        EngineOptions{.backends = {.self_test_model = find_bundled_model().value_or(""),
                                   .pipeline_cache = default_pipeline_cache()},
                      .backend = backend_preference(launch)});
    m_engine->load(launch.model_file.toStdString(), {.cancel = &m_cancel_start});
    m_scheduler =
        std::make_unique<BatchScheduler>(*m_engine, SchedulerOptions{.rows = launch.server.rows});
    m_api = std::make_unique<server::ApiServer>(*m_scheduler, api_options(launch));
    m_api->start();
    spdlog::info("API server: serving {} on 127.0.0.1:{} ({} rows)",
                 launch.model_file.toStdString(), m_api->port(), launch.server.rows);
}

server::ApiServerOptions ServerWorker::api_options(const ServerLaunch& launch) {
    server::ApiServerOptions options{.host = "127.0.0.1",
                                     .port = launch.server.port,
                                     .catalog_folder = server::hearth_models_folder()};
    if (!launch.server.api_key.isEmpty()) options.api_key = launch.server.api_key.toStdString();
    const core::AnswerOrigin origin{.model_file = launch.model_file,
                                    .backend = text(m_engine->backend_report().name)};
    // On the request's own thread: only a copy into plain Qt data, then a queued signal.
    options.on_chat_answered = [this, origin](const ChatRequest& request,
                                              const GenerationResult& result) {
        emit chatAnswered(core::api_conversation(request, result, origin));
    };
    return options;
}

void ServerWorker::stop() {
    if (!m_api) return;
    release();
    emit stopped({});
}

void ServerWorker::publish_counters() {
    if (m_scheduler) emit countersChanged(m_scheduler->counters());
}

// ApiServer::stop ends running answers and refuses queued ones; then the scheduler's rows, then
// the engine (unmapping the file) go, all on this thread.
void ServerWorker::release() {
    m_tick.stop();
    if (m_api) m_api->stop();
    m_api.reset();
    m_scheduler.reset();
    m_engine.reset();
}

}  // namespace hearth
