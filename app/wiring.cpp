#include "app/wiring.h"

#include "app/bundled_model.h"
#include "app/engine_controller.h"
#include "app/screenshot_tour.h"
#include "app/server_controller.h"
#include "ui/main_window.h"

namespace hearth {

void wire(ui::MainWindow& window, EngineController& engine) {
    auto* worker = engine.worker();
    // GUI -> engine. The controller re-emits to the worker through queued connections; stop and
    // cancel flip atomic flags, so they work while the worker is busy.
    QObject::connect(&window, &ui::MainWindow::loadModelRequested, &engine,
                     &EngineController::loadModelRequested);
    QObject::connect(&window, &ui::MainWindow::useRemoteRequested, &engine,
                     &EngineController::useRemoteRequested);
    QObject::connect(&window, &ui::MainWindow::generateRequested, &engine,
                     &EngineController::generateRequested);
    QObject::connect(&window, &ui::MainWindow::stopRequested, &engine, &EngineController::stop);
    QObject::connect(&window, &ui::MainWindow::cancelLoadRequested, &engine,
                     &EngineController::cancelLoad);
    QObject::connect(&window, &ui::MainWindow::globalSettingsChanged, &engine,
                     [&engine](const core::GlobalSettings& settings) {
                         emit engine.configureRequested(settings.threads, settings.chunk_tokens,
                                                        settings.speculative, settings.draft_model,
                                                        settings.backend, settings.kv_cache);
                     });
    QObject::connect(&window, &ui::MainWindow::runBenchmarkRequested, &engine,
                     &EngineController::benchmarkRequested);
    // Every load, whoever asks for it, so the window knows which one an error is about.
    QObject::connect(&engine, &EngineController::loadModelRequested, &window,
                     &ui::MainWindow::showLoadStarted);
    if (const auto bundled = find_bundled_model()) {
        window.set_bundled_model(QString::fromStdString(bundled->string()));
    }
    // Engine -> GUI.
    QObject::connect(worker, &InferenceWorker::loadProgress, &window,
                     &ui::MainWindow::showLoadProgress, Qt::QueuedConnection);
    QObject::connect(worker, &InferenceWorker::modelLoaded, &window, &ui::MainWindow::showModel,
                     Qt::QueuedConnection);
    QObject::connect(worker, &InferenceWorker::modelInfoChanged, &window,
                     &ui::MainWindow::showModelInfo, Qt::QueuedConnection);
    QObject::connect(worker, &InferenceWorker::generationStarted, &window,
                     &ui::MainWindow::showGenerationStarted, Qt::QueuedConnection);
    QObject::connect(worker, &InferenceWorker::prefillProgress, &window,
                     &ui::MainWindow::showPrefillProgress, Qt::QueuedConnection);
    QObject::connect(worker, &InferenceWorker::tokensReady, &window, &ui::MainWindow::appendChunk,
                     Qt::QueuedConnection);
    QObject::connect(worker, &InferenceWorker::generationFinished, &window,
                     &ui::MainWindow::finishGeneration, Qt::QueuedConnection);
    QObject::connect(worker, &InferenceWorker::generationFailed, &window,
                     &ui::MainWindow::failGeneration, Qt::QueuedConnection);
    QObject::connect(worker, &InferenceWorker::remoteChosen, &window, &ui::MainWindow::showRemote,
                     Qt::QueuedConnection);
    QObject::connect(worker, &InferenceWorker::answerFailed, &window, &ui::MainWindow::failAnswer,
                     Qt::QueuedConnection);
    QObject::connect(worker, &InferenceWorker::loadFailed, &window,
                     &ui::MainWindow::showLoadFailure, Qt::QueuedConnection);
    QObject::connect(worker, &InferenceWorker::remoteRefused, &window,
                     &ui::MainWindow::showRemoteRefused, Qt::QueuedConnection);
    QObject::connect(worker, &InferenceWorker::errorOccurred, &window, &ui::MainWindow::showError,
                     Qt::QueuedConnection);
    QObject::connect(worker, &InferenceWorker::backendChanged, &window,
                     &ui::MainWindow::showBackend, Qt::QueuedConnection);
    QObject::connect(worker, &InferenceWorker::benchmarkProgress, &window,
                     &ui::MainWindow::showBenchmarkProgress, Qt::QueuedConnection);
    QObject::connect(worker, &InferenceWorker::benchmarkFinished, &window,
                     &ui::MainWindow::showBenchmark, Qt::QueuedConnection);
    QObject::connect(worker, &InferenceWorker::benchmarkFailed, &window,
                     &ui::MainWindow::showBenchmarkFailure, Qt::QueuedConnection);
    const auto& settings = window.global_settings();
    emit engine.configureRequested(settings.threads, settings.chunk_tokens, settings.speculative,
                                   settings.draft_model, settings.backend, settings.kv_cache);
}

void wire(ui::MainWindow& window, ServerController& server, EngineController& engine) {
    auto& status = server.status();
    window.set_server_status(&status);
    server.set_engine_settings(window.global_settings());
    // Both on the GUI thread.
    QObject::connect(&window, &ui::MainWindow::globalSettingsChanged, &server,
                     &ServerController::set_engine_settings);
    QObject::connect(&status, &core::ServerStatus::startRequested, &window,
                     [&window](const core::ServerSettings& started) {
                         auto settings = window.global_settings();
                         if (settings.server == started) return;
                         settings.server = started;
                         window.apply_global_settings(settings);
                     });
    // Engine and server threads -> GUI.
    QObject::connect(
        engine.worker(), &InferenceWorker::modelLoaded, &status,
        [&status](const ModelInfo& info) {
            status.set_window_model(QString::fromStdString(info.path.string()));
        },
        Qt::QueuedConnection);
    QObject::connect(server.worker(), &ServerWorker::chatAnswered, &window,
                     &ui::MainWindow::keepApiConversation, Qt::QueuedConnection);
}

void wire(ScreenshotTour& tour, EngineController& engine) {
    auto* worker = engine.worker();
    QObject::connect(worker, &InferenceWorker::modelLoaded, &tour, &ScreenshotTour::modelLoaded,
                     Qt::QueuedConnection);
    QObject::connect(worker, &InferenceWorker::tokensReady, &tour, &ScreenshotTour::chunkArrived,
                     Qt::QueuedConnection);
    QObject::connect(worker, &InferenceWorker::generationFinished, &tour,
                     &ScreenshotTour::answerFinished, Qt::QueuedConnection);
}

}  // namespace hearth
