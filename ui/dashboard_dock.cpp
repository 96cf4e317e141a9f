#include "ui/dashboard_dock.h"

#include <QEvent>
#include <QMainWindow>
#include <QScrollArea>
#include <QScrollBar>
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
    // The dashboard fills the dock's width and scrolls where it is too tall.
    scroll->setWidgetResizable(true);
    // Its figures sit under their names, so it needs height, not width: it scrolls down only.
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    scroll->setWidget(dashboard);
    setWidget(scroll);
    if (parent != nullptr) parent->installEventFilter(this);
}

int DashboardDock::width_for(int window_width, int least) {
    return std::clamp(window_width / 4, least, std::max(least, kMaximumWidth));
}

int DashboardDock::least_width() const {
    const auto* scroll = static_cast<const QScrollArea*>(widget());
    // The dashboard's own least width, beside the scroll bar it gets when taller than the dock.
    return std::max(kMinimumWidth, scroll->widget()->minimumSizeHint().width() +
                                       scroll->verticalScrollBar()->sizeHint().width() +
                                       2 * scroll->frameWidth());
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
    const int least = least_width();
    widget()->setMinimumWidth(least);
    window->resizeDocks({this}, {width_for(window->width(), least)}, Qt::Horizontal);
}

}  // namespace hearth::ui
