// Every signal/slot edge between the GUI thread and the engine thread, in one function.
#pragma once

namespace hearth {

class EngineController;
namespace ui {
class MainWindow;
}

void wire(ui::MainWindow& window, EngineController& engine);

}  // namespace hearth
