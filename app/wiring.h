// Every edge between the GUI thread and the engine thread, in one place: the window's requests
// go to the engine, and each engine report comes back through a queued connection.
#pragma once

namespace hearth {

class EngineController;
class ScreenshotTour;
class ServerController;
namespace ui {
class MainWindow;
}

void wire(ui::MainWindow& window, EngineController& engine);
// The in-process API server: the window's Server page and dashboard show its status, a start
// keeps the page's settings, the server follows the window's engine settings and model, and the
// chats it answers come back to the window (which keeps them only if the settings say so).
void wire(ui::MainWindow& window, ServerController& server, EngineController& engine);
// The screenshot tour steps on as the engine loads the model and streams each answer.
void wire(ScreenshotTour& tour, EngineController& engine);

}  // namespace hearth
