#include "app/engine_controller.h"

#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <spdlog/spdlog.h>

namespace hearth {
namespace {

// The engine thread (and the compute threads it starts, which inherit this) yields to the GUI
// thread whenever both want a core: generation keeps every idle cycle, while a frame or a key
// press never waits behind a matrix product. Linux keeps nice values per thread.
constexpr int kEngineNice = 5;

void lower_engine_priority() {
    const auto thread = static_cast<id_t>(::syscall(SYS_gettid));
    if (::setpriority(PRIO_PROCESS, thread, kEngineNice) != 0) {
        spdlog::warn("could not lower the engine thread's priority; the window may stutter");
    }
}

}  // namespace

EngineController::EngineController(QObject* parent)
    : QObject(parent), m_worker(new InferenceWorker(m_stop, m_cancel_load)) {
    qRegisterMetaType<hearth::ChatRequest>();
    qRegisterMetaType<hearth::TokenChunk>();
    qRegisterMetaType<hearth::GenerationStats>();
    qRegisterMetaType<hearth::GenerationResult>();
    qRegisterMetaType<hearth::ModelInfo>();
    qRegisterMetaType<hearth::TemplateChoices>();
    qRegisterMetaType<hearth::core::BenchmarkResult>();
    qRegisterMetaType<hearth::core::RemoteChoice>();
    m_thread.setObjectName(QStringLiteral("engine"));
    m_worker->moveToThread(&m_thread);
    connect(&m_thread, &QThread::finished, m_worker, &QObject::deleteLater);
    connect(&m_thread, &QThread::started, m_worker, &lower_engine_priority, Qt::DirectConnection);
    connect(this, &EngineController::loadModelRequested, m_worker, &InferenceWorker::loadModel,
            Qt::QueuedConnection);
    connect(this, &EngineController::useRemoteRequested, m_worker, &InferenceWorker::useRemote,
            Qt::QueuedConnection);
    connect(this, &EngineController::generateRequested, m_worker, &InferenceWorker::generate,
            Qt::QueuedConnection);
    connect(this, &EngineController::configureRequested, m_worker, &InferenceWorker::configure,
            Qt::QueuedConnection);
    connect(this, &EngineController::benchmarkRequested, m_worker, &InferenceWorker::runBenchmark,
            Qt::QueuedConnection);
    m_thread.start();
}

EngineController::~EngineController() {
    m_stop = true;
    m_cancel_load = true;
    m_thread.quit();
    m_thread.wait();
}

}  // namespace hearth
