#include "ui/dashboard_dock.h"

#include <QEvent>
#include <QMainWindow>
#include <QScrollArea>
#include <QTimer>

#include <algorithm>

#include "ui/performance_dashboard.h"

namespace hearth::ui {

DashboardDock::DashboardDock(PerformanceDashboard* dashboard, QWidget* parent)
    : QDockWidget(tr("Performance"), parent) {
    setObjectName(QStringLiteral("dashboardDock"));
    setAllowedAreas(Qt::LeftDockWidgetArea | Qt::RightDockWidgetArea | Qt::BottomDockWidgetArea);
    auto* scroll = new QScrollArea;
    scroll->setObjectName(QStringLiteral("dashboardScroll"));
    scroll->setFrameShape(QFrame::NoFrame);
    // The dashboard fills the dock where it fits and scrolls where it does not.
    scroll->setWidgetResizable(true);
    scroll->setWidget(dashboard);
    scroll->setMinimumWidth(kMinimumWidth);
    setWidget(scroll);
    if (parent != nullptr) parent->installEventFilter(this);
}

int DashboardDock::width_for(int window_width) {
    return std::clamp(window_width / 4, kMinimumWidth, kMaximumWidth);
}

bool DashboardDock::eventFilter(QObject* watched, QEvent* event) {
    if (watched == parentWidget() && event->type() == QEvent::Resize) {
        // After the window has laid itself out at its new size.
        QTimer::singleShot(0, this, &DashboardDock::fit);
    }
    return QDockWidget::eventFilter(watched, event);
}

void DashboardDock::showEvent(QShowEvent* event) {
    QDockWidget::showEvent(event);
    QTimer::singleShot(0, this, &DashboardDock::fit);
}

void DashboardDock::fit() {
    auto* window = qobject_cast<QMainWindow*>(parentWidget());
    if (window == nullptr || !isVisible() || isFloating()) return;
    if (window->dockWidgetArea(this) == Qt::BottomDockWidgetArea) return;
    window->resizeDocks({this}, {width_for(window->width())}, Qt::Horizontal);
}

}  // namespace hearth::ui
