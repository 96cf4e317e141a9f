// The in-process API server as the window sees it: the phase it is in, the model it serves, why
// it last failed to start, and its live counters, plus the user's requests to start and stop
// it. The window's pages read it and ask through it; app/'s ServerController does the work off
// the GUI thread and reports back here, so the widgets never touch the server itself. Lives on
// the GUI thread.
#pragma once

#include <QObject>
#include <QString>

#include "app/core/global_settings.h"
#include "engine/serving/batch_scheduler.h"

namespace hearth::core {

enum class ServerPhase { Stopped, Starting, Running, Stopping };

struct ServerState {
    ServerPhase phase = ServerPhase::Stopped;
    int port = 0;        // Running: the port it listens on (the system's choice for port 0)
    int rows = 0;        // Starting, Running
    QString model_file;  // Starting, Running: the model it loads or serves
    QString backend;     // Running: as its engine reports it
    QString error;       // Stopped: why the last start failed or the server ended; empty when
                         // it was stopped on request

    bool operator==(const ServerState&) const = default;
};

// The address clients are given: OpenAI clients take it as their base URL.
QString server_url(int port);

class ServerStatus final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ServerStatus)

public:
    explicit ServerStatus(QObject* parent = nullptr);

    const ServerState& state() const { return m_state; }
    bool running() const { return m_state.phase == ServerPhase::Running; }
    // Zero while the server is not running.
    const SchedulerCounters& counters() const { return m_counters; }
    // The model the window has loaded now: a start serves it.
    const QString& window_model() const { return m_window_model; }

    // From the pages: what the user asked for. The controller answers through set_state.
    void request_start(const ServerSettings& settings) { emit startRequested(settings); }
    void request_stop() { emit stopRequested(); }

    // From the controller.
    void set_state(const ServerState& state);
    void set_counters(const SchedulerCounters& counters);
    void set_window_model(const QString& path);

signals:
    void startRequested(const hearth::core::ServerSettings& settings);
    void stopRequested();
    void stateChanged();  // the state or the window's model
    void countersChanged();

private:
    ServerState m_state;
    SchedulerCounters m_counters;
    QString m_window_model;
};

}  // namespace hearth::core
