#include "app/wiring.h"

#include "app/engine_controller.h"
#include "ui/main_window.h"

namespace hearth {

void wire(ui::MainWindow& window, EngineController& engine) {
    auto* worker = engine.worker();
    // GUI -> engine: the controller re-emits to the worker through queued connections; stop
    // flips an atomic flag directly, so it works while the worker is busy.
    QObject::connect(&window, &ui::MainWindow::sendRequested, &engine,
                     &EngineController::generateRequested);
    QObject::connect(&window, &ui::MainWindow::stopRequested, &engine, &EngineController::stop);
    // Engine -> GUI.
    QObject::connect(worker, &InferenceWorker::modelLoaded, &window, &ui::MainWindow::showModel,
                     Qt::QueuedConnection);
    QObject::connect(worker, &InferenceWorker::tokensReady, &window, &ui::MainWindow::appendText,
                     Qt::QueuedConnection);
    QObject::connect(worker, &InferenceWorker::generationFinished, &window,
                     &ui::MainWindow::showFinished, Qt::QueuedConnection);
    QObject::connect(worker, &InferenceWorker::errorOccurred, &window, &ui::MainWindow::showError,
                     Qt::QueuedConnection);
}

}  // namespace hearth
