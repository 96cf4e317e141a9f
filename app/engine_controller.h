// Owns the engine thread and the worker on it; lives on the GUI thread. Stop and cancel-load
// are atomic flags as well as slots, so they act while the worker is busy.
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
    // Stops a running generation or load and joins the thread (within a forward step).
    ~EngineController() override;

    InferenceWorker* worker() const { return m_worker; }

public slots:
    void stop() { m_stop = true; }
    void cancelLoad() { m_cancel_load = true; }

signals:
    void loadModelRequested(const QString& path);
    void useRemoteRequested(const hearth::core::RemoteChoice& choice);
    void generateRequested(const hearth::ChatRequest& request);
    void configureRequested(int threads, int chunk_tokens, bool speculative,
                            const QString& draft_model, const QString& backend,
                            const QString& kv_cache);
    void benchmarkRequested(int prompt_tokens, int generated_tokens);

private:
    std::atomic<bool> m_stop{false};
    std::atomic<bool> m_cancel_load{false};
    QThread m_thread;
    InferenceWorker* m_worker;  // owned by the thread's event loop, deleted when it finishes
};

}  // namespace hearth
