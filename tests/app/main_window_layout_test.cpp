// The window at 800×600 with the performance dashboard shown: the dashboard shares the window
// instead of widening it, nothing sticks out past its edges, and the chat stays usable.
#include <gtest/gtest.h>

#include <QAbstractScrollArea>
#include <QDockWidget>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QTest>

#include "tests/support/chat_window_test.h"
#include "ui/chat_view.h"
#include "ui/message_widget.h"
#include "ui/performance_dashboard.h"

namespace hearth::test {
namespace {

using MainWindowLayoutTest = ChatWindowTest;

// Whether `widget` lies inside a scroll area's viewport, where reaching past the visible part
// is what scrolling is for.
bool scrolled(const QWidget& widget, const QWidget& window) {
    for (const QWidget* parent = widget.parentWidget(); parent && parent != &window;
         parent = parent->parentWidget()) {
        const auto* area = qobject_cast<const QAbstractScrollArea*>(parent->parentWidget());
        if (area != nullptr && area->viewport() == parent) return true;
    }
    return false;
}

QRect in_window(const QWidget& widget, const QWidget& window) {
    return QRect(widget.mapTo(&window, QPoint(0, 0)), widget.size());
}

TEST_F(MainWindowLayoutTest, TheDashboardSharesAnEightHundredBySixHundredWindow) {
    ASSERT_TRUE(load(bundled()));
    type_and_send("Once upon a time");
    ASSERT_TRUE(wait_finished());
    auto* performance = m_window.findChild<QPushButton*>("showDashboard");
    m_window.resize(800, 600);
    QTest::qWait(50);
    QTest::mouseClick(performance, Qt::LeftButton);
    QTest::qWait(50);  // the dock's showing and the layouts it starts
    QCoreApplication::processEvents();

    EXPECT_EQ(m_window.size(), QSize(800, 600));
    const auto* dashboard = m_window.dashboard();
    ASSERT_TRUE(dashboard->isVisible());
    // In the window (a dock), not a window of its own.
    EXPECT_EQ(dashboard->window(), &m_window);
    const QRect window_rect = m_window.rect();
    for (const QWidget* child : m_window.findChildren<QWidget*>()) {
        if (!child->isVisible() || child->isWindow() || scrolled(*child, m_window)) continue;
        EXPECT_TRUE(window_rect.contains(in_window(*child, m_window)))
            << child->metaObject()->className() << " '" << child->objectName().toStdString()
            << "' at " << in_window(*child, m_window).x() << "," << in_window(*child, m_window).y()
            << " " << child->width() << "×" << child->height();
    }

    // The chat keeps a usable width, the widest part of the window; its last answer's buttons
    // fit inside it; and the prompt box stays on screen.
    auto* chat = m_window.chat_view();
    const auto* dock = m_window.findChild<QDockWidget*>("dashboardDock");
    const auto* conversations = m_window.findChild<QListWidget*>("conversations");
    EXPECT_GE(chat->width(), 320);
    EXPECT_GE(chat->height(), 200) << "the chat is squeezed to " << chat->height() << " pixels";
    EXPECT_GT(chat->width(), dock->width());
    EXPECT_GT(chat->width(), conversations->width());
    EXPECT_GE(dock->width(), 180);
    const auto* answer = widget_for(last_message());
    ASSERT_NE(answer, nullptr);
    const QWidget* viewport = chat->viewport();
    for (const char* name : {"copyMessage", "regenerate"}) {
        auto* button = answer->findChild<QPushButton*>(name);
        ASSERT_NE(button, nullptr) << name;
        EXPECT_TRUE(button->isVisible()) << name;
        chat->ensureWidgetVisible(button);  // a long answer scrolls its top out of view
        const QRect at(button->mapTo(viewport, QPoint(0, 0)), button->size());
        EXPECT_TRUE(viewport->rect().contains(at))
            << name << " at " << at.x() << "," << at.y() << " in a viewport of "
            << viewport->width() << "×" << viewport->height();
    }
    const auto* prompt = m_window.findChild<QPlainTextEdit*>("prompt");
    EXPECT_TRUE(prompt->isVisible());
    EXPECT_TRUE(window_rect.contains(in_window(*prompt, m_window)));
    EXPECT_GE(prompt->width(), 240);
    EXPECT_GE(prompt->height(), 30);
}

}  // namespace
}  // namespace hearth::test
