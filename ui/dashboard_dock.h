// The performance dashboard's place in the main window: a dock beside the chat that scrolls
// when the window is small, so showing it never widens the window past the screen (the
// dashboard's charts and tables would otherwise set the window's minimum size).
#pragma once

#include <QDockWidget>

namespace hearth::ui {

class PerformanceDashboard;

class DashboardDock final : public QDockWidget {
    Q_OBJECT

public:
    // Takes `dashboard` into the dock.
    DashboardDock(PerformanceDashboard* dashboard, QWidget* parent = nullptr);

    // The width the dock takes beside the chat in a window `window_width` wide: a quarter of
    // it, at least `least` (what the dashboard needs), at most kMaximumWidth, so that in an
    // 800-pixel window the chat keeps the most room.
    static int width_for(int window_width, int least);
    static constexpr int kMinimumWidth = 200;
    static constexpr int kMaximumWidth = 420;

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;
    void showEvent(QShowEvent* event) override;

private:
    // Gives the dock its width for the window's current size (QMainWindow would otherwise
    // take all of a shrinking window's loss from the chat).
    void fit();
    int least_width() const;
};

}  // namespace hearth::ui
