// hearth: the desktop app. Wires the window to the engine thread and loads the bundled model.
#include <QApplication>

#include "app/bundled_model.h"
#include "app/engine_controller.h"
#include "app/wiring.h"
#include "ui/main_window.h"

int main(int argc, char** argv) {
    QApplication application(argc, argv);
    QApplication::setApplicationName(QStringLiteral("Hearth"));
    hearth::ui::MainWindow window;
    hearth::EngineController engine;
    hearth::wire(window, engine);
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
