// The in-process API server's owner on the GUI thread: takes the user's start and stop from
// core::ServerStatus, runs them on the server's own thread (ServerWorker lives there) and
// reports the phase, errors and counters back to the status. The GUI never waits on it, except
// when the app quits: the destructor stops the server and joins its thread.
//
// The server serves the model the window had loaded when it started. When the window loads
// another model meanwhile, the server keeps the first (the Server page says so) rather than
// restarting: a restart would cut off every client's answer mid-stream and drop the KV caches
// their conversations reuse, for a change the user made to the window, not to the server.
// Stopping and starting it again serves the window's new model.
#pragma once

#include <QObject>
#include <QThread>

#include <atomic>

#include "app/core/global_settings.h"
#include "app/core/server_status.h"
#include "app/server_worker.h"

namespace hearth {

class ServerController final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ServerController)

public:
    explicit ServerController(QObject* parent = nullptr);
    // Stops the server (its answers end, queued requests get 503) and joins its thread.
    ~ServerController() override;

    core::ServerStatus& status() { return m_status; }
    ServerWorker* worker() const { return m_worker; }
    // The window's engine settings: the next start runs on the same backend (app/wiring.cpp
    // keeps them current).
    void set_engine_settings(const core::GlobalSettings& settings) { m_settings = settings; }

signals:
    void startRequested(const hearth::ServerLaunch& launch);
    void stopRequested();

private:
    void start(const core::ServerSettings& server);
    void stop();
    void started(int port, const QString& backend);
    void stopped(const QString& error);
    void set_phase(core::ServerPhase phase);

    core::ServerStatus m_status;
    core::GlobalSettings m_settings;
    std::atomic<bool> m_cancel_start{false};
    QThread m_thread;
    ServerWorker* m_worker;  // owned by the thread's event loop, deleted when it finishes
};

}  // namespace hearth
