// Settings → Server, driven as a user drives it, against a ServerStatus the test plays the
// controller's part on: what Start asks for, what the page shows in each phase, the live
// counts, the URL and its copy button, the key check and every control's tooltip.
#include "ui/server_page.h"

#include <gtest/gtest.h>

#include <QCheckBox>
#include <QClipboard>
#include <QGuiApplication>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTabWidget>
#include <QTest>

#include "ui/settings_dialog.h"

namespace hearth::ui {
namespace {

class ServerPageTest : public testing::Test {
protected:
    template <typename T>
    T* child(const char* name) {
        auto* found = m_page.findChild<T*>(QString::fromLatin1(name));
        EXPECT_NE(found, nullptr) << name;
        return found;
    }

    QString text(const char* label) { return child<QLabel>(label)->text(); }

    core::ServerStatus m_status;
    ServerPage m_page{core::ServerSettings{}, m_status};
};

TEST_F(ServerPageTest, EveryControlSaysWhatItDoes) {
    for (const char* name :
         {"serverPort", "serverRows", "serverApiKey", "generateApiKey", "keepApiHistory",
          "serverStartStop", "serverState", "serverUrl", "copyServerUrl", "serverRowsBusy",
          "serverQueue", "serverServed", "serverRate"}) {
        auto* widget = child<QWidget>(name);
        ASSERT_NE(widget, nullptr);
        EXPECT_GT(widget->toolTip().size(), 20) << name;
    }
}

// Off by default: nothing the API answers is kept unless the user asks.
TEST_F(ServerPageTest, StartAsksForTheEnteredSettings) {
    EXPECT_FALSE(child<QCheckBox>("keepApiHistory")->isChecked());
    EXPECT_EQ(text("serverState"), "Stopped.");
    QSignalSpy asked(&m_status, &core::ServerStatus::startRequested);
    child<QSpinBox>("serverPort")->setValue(18080);
    child<QSpinBox>("serverRows")->setValue(4);
    child<QLineEdit>("serverApiKey")->setText("sk-local");
    child<QCheckBox>("keepApiHistory")->setChecked(true);
    EXPECT_EQ(child<QLineEdit>("serverUrl")->text(), "http://127.0.0.1:18080/v1");
    auto* start = child<QPushButton>("serverStartStop");
    EXPECT_EQ(start->text(), "Start server");
    QTest::mouseClick(start, Qt::LeftButton);
    ASSERT_EQ(asked.size(), 1);
    const auto settings = asked.front().front().value<core::ServerSettings>();
    EXPECT_EQ(settings,
              (core::ServerSettings{
                  .port = 18080, .rows = 4, .api_key = "sk-local", .keep_in_history = true}));
    EXPECT_EQ(m_page.settings(), settings);
}

TEST_F(ServerPageTest, AKeyNoClientCouldSendCannotBeUsed) {
    auto* key = child<QLineEdit>("serverApiKey");
    key->setText("two words");
    EXPECT_FALSE(m_page.valid());
    EXPECT_FALSE(child<QPushButton>("serverStartStop")->isEnabled());
    QTest::mouseClick(child<QPushButton>("generateApiKey"), Qt::LeftButton);
    EXPECT_TRUE(m_page.valid());
    const QString first = key->text();
    EXPECT_TRUE(first.startsWith("sk-hearth-"));
    EXPECT_EQ(first.size(), 10 + 48);
    QTest::mouseClick(child<QPushButton>("generateApiKey"), Qt::LeftButton);
    EXPECT_NE(key->text(), first);
    EXPECT_TRUE(child<QPushButton>("serverStartStop")->isEnabled());
}

TEST_F(ServerPageTest, ShowsEachPhaseAndTheLiveCounts) {
    m_status.set_state(
        {.phase = core::ServerPhase::Starting, .rows = 4, .model_file = "/m/a.gguf"});
    EXPECT_TRUE(text("serverState").contains("a.gguf"));
    EXPECT_EQ(child<QPushButton>("serverStartStop")->text(), "Stop server");
    EXPECT_FALSE(child<QSpinBox>("serverPort")->isEnabled());

    m_status.set_state({.phase = core::ServerPhase::Running,
                        .port = 5555,
                        .rows = 4,
                        .model_file = "/m/a.gguf",
                        .backend = "cpu"});
    EXPECT_EQ(text("serverState"), "Serving a.gguf on port 5555 (cpu, 4 rows).");
    EXPECT_EQ(child<QLineEdit>("serverUrl")->text(), "http://127.0.0.1:5555/v1");
    EXPECT_EQ(text("serverRowsBusy"), "–");  // until the server first reports
    m_status.set_counters({.rows = 4,
                           .rows_busy = 3,
                           .queue_depth = 2,
                           .requests_finished = 17,
                           .tokens_per_second = 45.06});
    EXPECT_EQ(text("serverRowsBusy"), "3 of 4");
    EXPECT_EQ(text("serverQueue"), "2");
    EXPECT_EQ(text("serverServed"), "17");
    EXPECT_EQ(text("serverRate"), "45.1 tok/s");

    QTest::mouseClick(child<QPushButton>("copyServerUrl"), Qt::LeftButton);
    EXPECT_EQ(QGuiApplication::clipboard()->text(), "http://127.0.0.1:5555/v1");

    QSignalSpy stop(&m_status, &core::ServerStatus::stopRequested);
    QTest::mouseClick(child<QPushButton>("serverStartStop"), Qt::LeftButton);
    EXPECT_EQ(stop.size(), 1);
    m_status.set_state({.phase = core::ServerPhase::Stopping, .model_file = "/m/a.gguf"});
    EXPECT_FALSE(child<QPushButton>("serverStartStop")->isEnabled());
    m_status.set_state({});
    EXPECT_EQ(text("serverState"), "Stopped.");
    EXPECT_EQ(text("serverRowsBusy"), "–");
    EXPECT_TRUE(child<QSpinBox>("serverPort")->isEnabled());
}

// The window loading another model does not change what a running server serves; the page says
// so, and says nothing once both agree again.
TEST_F(ServerPageTest, SaysWhenTheWindowHasMovedToAnotherModel) {
    m_page.show();
    m_status.set_window_model("/m/a.gguf");
    m_status.set_state({.phase = core::ServerPhase::Running, .port = 1, .model_file = "/m/a.gguf"});
    auto* note = child<QLabel>("serverModelNote");
    EXPECT_FALSE(note->isVisible());
    m_status.set_window_model("/m/b.gguf");
    EXPECT_TRUE(note->isVisible());
    EXPECT_EQ(note->text(),
              "The window now has b.gguf loaded; the server still serves a.gguf until you stop "
              "and start it again.");
    m_status.set_state({});
    EXPECT_FALSE(note->isVisible());
}

TEST_F(ServerPageTest, AFailedStartSaysWhy) {
    m_status.set_state({.error = "cannot listen on 127.0.0.1:8080: Address already in use"});
    EXPECT_EQ(text("serverState"),
              "The server could not start: cannot listen on 127.0.0.1:8080: Address already in "
              "use");
    EXPECT_EQ(child<QPushButton>("serverStartStop")->text(), "Start server");
}

// In the dialog: a Server tab, its settings returned with the others, and OK held back while
// the key is one no client could send.
TEST(SettingsDialogServer, TheServerPageIsATabOfTheSettings) {
    core::ServerStatus status;
    core::GlobalSettings global;
    global.server.rows = 3;
    SettingsDialog without(core::ConversationSettings{}, global, {});
    EXPECT_EQ(without.findChild<ServerPage*>(), nullptr);
    SettingsDialog dialog(core::ConversationSettings{}, global, {}, &status);
    auto* tabs = dialog.findChild<QTabWidget*>();
    ASSERT_NE(tabs, nullptr);
    EXPECT_EQ(tabs->tabText(tabs->count() - 1), "Server");
    EXPECT_EQ(dialog.findChild<QSpinBox*>("serverRows")->value(), 3);
    dialog.findChild<QSpinBox*>("serverPort")->setValue(9000);
    EXPECT_EQ(dialog.global().server.port, 9000);
    dialog.findChild<QLineEdit*>("serverApiKey")->setText("a b");
    EXPECT_FALSE(dialog.valid());
    dialog.findChild<QLineEdit*>("serverApiKey")->setText("ab");
    EXPECT_TRUE(dialog.valid());
    EXPECT_EQ(dialog.global().server.api_key, "ab");
}

}  // namespace
}  // namespace hearth::ui
