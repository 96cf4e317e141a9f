#include "app/server_controller.h"

namespace hearth {

ServerController::ServerController(QObject* parent)
    : QObject(parent), m_worker(new ServerWorker(m_cancel_start)) {
    qRegisterMetaType<hearth::ServerLaunch>();
    qRegisterMetaType<hearth::SchedulerCounters>();
    qRegisterMetaType<hearth::core::Conversation>();
    m_thread.setObjectName(QStringLiteral("api-server"));
    m_worker->moveToThread(&m_thread);
    // The worker's destructor stops a running server on its own thread, after the event loop.
    connect(&m_thread, &QThread::finished, m_worker, &QObject::deleteLater);
    // Every edge between this thread and the server's, queued.
    connect(this, &ServerController::startRequested, m_worker, &ServerWorker::start,
            Qt::QueuedConnection);
    connect(this, &ServerController::stopRequested, m_worker, &ServerWorker::stop,
            Qt::QueuedConnection);
    connect(m_worker, &ServerWorker::started, this, &ServerController::started,
            Qt::QueuedConnection);
    connect(m_worker, &ServerWorker::stopped, this, &ServerController::stopped,
            Qt::QueuedConnection);
    connect(m_worker, &ServerWorker::countersChanged, &m_status, &core::ServerStatus::set_counters,
            Qt::QueuedConnection);
    connect(&m_status, &core::ServerStatus::startRequested, this, &ServerController::start);
    connect(&m_status, &core::ServerStatus::stopRequested, this, &ServerController::stop);
    m_thread.start();
}

ServerController::~ServerController() {
    m_cancel_start = true;
    m_thread.quit();
    m_thread.wait();
}

void ServerController::start(const core::ServerSettings& server) {
    if (m_status.state().phase != core::ServerPhase::Stopped) return;
    const QString model = m_status.window_model();
    if (model.isEmpty()) {
        m_status.set_state({.error = tr("Load a model in the window first (Models…): the server "
                                        "serves the window's model.")});
        return;
    }
    m_cancel_start = false;  // nothing is loading now: a cancel meant for an earlier start ends
    m_status.set_state(
        {.phase = core::ServerPhase::Starting, .rows = server.rows, .model_file = model});
    emit startRequested({.model_file = model,
                         .server = server,
                         .backend = m_settings.backend,
                         .kv_cache = m_settings.kv_cache,
                         .threads = m_settings.threads});
}

void ServerController::stop() {
    const auto phase = m_status.state().phase;
    if (phase != core::ServerPhase::Starting && phase != core::ServerPhase::Running) return;
    m_cancel_start = true;  // a model still loading stops loading
    set_phase(core::ServerPhase::Stopping);
    emit stopRequested();
}

void ServerController::started(int port, const QString& backend) {
    if (m_status.state().phase != core::ServerPhase::Starting) return;  // a stop is on its way
    core::ServerState state = m_status.state();
    state.phase = core::ServerPhase::Running;
    state.port = port;
    state.backend = backend;
    m_status.set_state(state);
}

void ServerController::stopped(const QString& error) {
    m_status.set_state({.error = error});
}

void ServerController::set_phase(core::ServerPhase phase) {
    core::ServerState state = m_status.state();
    state.phase = phase;
    m_status.set_state(state);
}

}  // namespace hearth
