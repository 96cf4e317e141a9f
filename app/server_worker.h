// Lives on the in-process server's thread: builds the server when asked (its own Engine on the
// window's model file, a BatchScheduler, an ApiServer on 127.0.0.1), publishes its counters once
// a second, and takes it down when asked or when it is destroyed. Loading a model and letting
// answers end take seconds, which is why none of it runs on the GUI thread. Never touches a
// widget.
#pragma once

#include <QObject>
#include <QString>
#include <QTimer>

#include <atomic>
#include <memory>

#include "app/core/conversation.h"
#include "app/core/global_settings.h"
#include "app/core/metatypes.h"
#include "app/server/api_server.h"
#include "engine/runtime/engine.h"
#include "engine/serving/batch_scheduler.h"

namespace hearth {

// Everything one start needs, copied to the server's thread.
struct ServerLaunch {
    QString model_file;
    core::ServerSettings server;
    // The window's engine settings, in the settings' words: the server runs on the same backend
    // with the same KV cache type and thread count.
    QString backend;
    QString kv_cache;
    int threads = 0;
};

class ServerWorker final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ServerWorker)

public:
    // `cancel_start` ends a model load in progress (a stop or the app quitting meanwhile).
    explicit ServerWorker(const std::atomic<bool>& cancel_start);
    ~ServerWorker() override;  // stops a running server

public slots:
    void start(const hearth::ServerLaunch& launch);
    void stop();

signals:
    void started(int port, const QString& backend);
    // Not started, or no longer running: `error` says why in plain words; empty after a stop
    // that was asked for (a start cancelled by it included).
    void stopped(const QString& error);
    void countersChanged(const hearth::SchedulerCounters& counters);
    // A chat answered through the API, as the history would keep it. Emitted on the thread
    // that served the request: connect it queued.
    void chatAnswered(const hearth::core::Conversation& conversation);

private:
    void serve(const ServerLaunch& launch);
    server::ApiServerOptions api_options(const ServerLaunch& launch);
    void publish_counters();
    void release();

    const std::atomic<bool>& m_cancel_start;
    QTimer m_tick;
    // Declared in the order they are built; release() ends them in reverse (server, scheduler,
    // engine), as each uses the one before.
    std::unique_ptr<Engine> m_engine;
    std::unique_ptr<BatchScheduler> m_scheduler;
    std::unique_ptr<server::ApiServer> m_api;
};

}  // namespace hearth

Q_DECLARE_METATYPE(hearth::ServerLaunch)
