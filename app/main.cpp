// hearth: the desktop app. Wires the window to the engine thread and loads the bundled model.
#include <QApplication>

#include "app/bundled_model.h"
#include "app/engine_controller.h"
#include "ui/main_window.h"

namespace {

// Every edge between the GUI thread and the engine thread, in one place.
void wire(hearth::ui::MainWindow& window, hearth::EngineController& engine) {
    auto* worker = engine.worker();
    QObject::connect(&window, &hearth::ui::MainWindow::sendRequested, &engine,
                     &hearth::EngineController::generateRequested);
    QObject::connect(&window, &hearth::ui::MainWindow::stopRequested, &engine,
                     &hearth::EngineController::stop);
    QObject::connect(worker, &hearth::InferenceWorker::modelLoaded, &window,
                     &hearth::ui::MainWindow::showModel, Qt::QueuedConnection);
    QObject::connect(worker, &hearth::InferenceWorker::tokensReady, &window,
                     &hearth::ui::MainWindow::appendText, Qt::QueuedConnection);
    QObject::connect(worker, &hearth::InferenceWorker::generationFinished, &window,
                     &hearth::ui::MainWindow::showFinished, Qt::QueuedConnection);
    QObject::connect(worker, &hearth::InferenceWorker::errorOccurred, &window,
                     &hearth::ui::MainWindow::showError, Qt::QueuedConnection);
}

}  // namespace

int main(int argc, char** argv) {
    QApplication application(argc, argv);
    QApplication::setApplicationName(QStringLiteral("Hearth"));
    hearth::ui::MainWindow window;
    hearth::EngineController engine;
    wire(window, engine);
    window.show();
    const QStringList arguments = QApplication::arguments();
    QString model;
    try {
        model = arguments.size() > 1
                    ? arguments[1]
                    : QString::fromStdString(hearth::bundled_model_path().string());
    } catch (const std::exception& error) {
        window.showError(QString::fromStdString(error.what()));
    }
    if (!model.isEmpty()) emit engine.loadModelRequested(model);
    return QApplication::exec();
}
