// `hearth --screenshots DIR`: drives the real window through a short session on the loaded
// model and saves what it looks like (chat mid-stream and finished, light and dark, the model
// picker, the settings dialog) as PNG files, then quits. For the docs and for reviewing the UI
// on machines without a desktop (under Xvfb or the offscreen platform).
#pragma once

#include <QString>

namespace hearth {

class EngineController;
namespace ui {
class MainWindow;
}

void start_screenshot_tour(ui::MainWindow& window, EngineController& engine, const QString& folder);

}  // namespace hearth
