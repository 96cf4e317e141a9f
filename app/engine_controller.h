// Owns the engine thread and the worker on it; lives on the GUI thread.
#pragma once

#include <QObject>
#include <QThread>

#include <atomic>

#include "app/inference_worker.h"

namespace hearth {

class EngineController final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(EngineController)

public:
    explicit EngineController(QObject* parent = nullptr);
    // Stops a running generation and joins the thread.
    ~EngineController() override;

    InferenceWorker* worker() const { return m_worker; }

public slots:
    // Takes effect while the worker is busy: the flag is polled between tokens.
    void stop() { m_stop = true; }

signals:
    void loadModelRequested(const QString& path);
    void generateRequested(const QString& prompt);

private:
    std::atomic<bool> m_stop{false};
    QThread m_thread;
    InferenceWorker* m_worker;  // owned by the thread's event loop, deleted when it finishes
};

}  // namespace hearth
