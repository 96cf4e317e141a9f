#include "app/core/server_status.h"

namespace hearth::core {

QString server_url(int port) {
    return QStringLiteral("http://127.0.0.1:%1/v1").arg(port);
}

ServerStatus::ServerStatus(QObject* parent) : QObject(parent) {}

void ServerStatus::set_state(const ServerState& state) {
    if (state == m_state) return;
    m_state = state;
    if (!running()) set_counters({});
    emit stateChanged();
}

void ServerStatus::set_counters(const SchedulerCounters& counters) {
    m_counters = counters;
    emit countersChanged();
}

void ServerStatus::set_window_model(const QString& path) {
    if (path == m_window_model) return;
    m_window_model = path;
    emit stateChanged();
}

}  // namespace hearth::core
