#include "app/engine_controller.h"

namespace hearth {

EngineController::EngineController(QObject* parent)
    : QObject(parent), m_worker(new InferenceWorker(m_stop)) {
    m_worker->moveToThread(&m_thread);
    connect(&m_thread, &QThread::finished, m_worker, &QObject::deleteLater);
    connect(this, &EngineController::loadModelRequested, m_worker, &InferenceWorker::loadModel,
            Qt::QueuedConnection);
    connect(this, &EngineController::generateRequested, m_worker, &InferenceWorker::generate,
            Qt::QueuedConnection);
    m_thread.setObjectName(QStringLiteral("engine"));
    m_thread.start();
}

EngineController::~EngineController() {
    m_stop = true;
    m_thread.quit();
    m_thread.wait();
}

}  // namespace hearth
