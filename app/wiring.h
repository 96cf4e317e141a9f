// Every edge between the GUI thread and the engine thread, in one place: the window's requests
// go to the engine, and each engine report comes back through a queued connection.
#pragma once

namespace hearth {

class EngineController;
class ScreenshotTour;
namespace ui {
class MainWindow;
}

void wire(ui::MainWindow& window, EngineController& engine);
// The screenshot tour steps on as the engine loads the model and streams each answer.
void wire(ScreenshotTour& tour, EngineController& engine);

}  // namespace hearth
