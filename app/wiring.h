// Every edge between the window and the engine thread, in one place.
#pragma once

namespace hearth {

class EngineController;
namespace ui {
class MainWindow;
}

void wire(ui::MainWindow& window, EngineController& engine);

}  // namespace hearth
