// The Models dialog as the window opens it: it marks the model in use, estimates memory at the
// conversation's context, and a folder removed or a connection edited there is saved.
#include <gtest/gtest.h>

#include <QApplication>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTableWidget>
#include <QTest>
#include <QTimer>

#include <functional>

#include "app/core/model_catalog.h"
#include "tests/support/chat_window_test.h"
#include "tests/support/shared_data.h"
#include "ui/model_picker.h"

namespace hearth::test {
namespace {

using ModelPickerWindowTest = ChatWindowTest;

// Opens the window's model picker and runs `check` on it while it is shown (it is modal), then
// closes it. False when no picker opened.
bool with_open_picker(ui::MainWindow& window, const std::function<void(ui::ModelPicker*)>& check) {
    bool seen = false;
    QTimer::singleShot(0, &window, [&] {
        auto* picker = qobject_cast<ui::ModelPicker*>(QApplication::activeModalWidget());
        if (picker == nullptr) return;
        seen = true;
        const auto close = qScopeGuard([picker] { picker->reject(); });
        check(picker);
    });
    window.open_model_picker();
    return seen;
}

TEST_F(ModelPickerWindowTest, ShowsTheLoadedModelAndForgetsARemovedFolder) {
    const QString shared = QString::fromStdString((shared_dir() / "models").string());
    m_window.set_model_source([](const QStringList& folders) {
        return core::scan_models(core::model_folders(folders), {});
    });
    auto global = m_window.global_settings();
    global.model_folders = {shared};
    m_window.apply_global_settings(global);
    ASSERT_TRUE(load(QString::fromStdString(model_path("synth-qwen3-256.gguf").string())));
    auto conversation = m_window.current_conversation()->settings();
    conversation.context_length = 1500;
    m_window.apply_conversation_settings(conversation);
    QSignalSpy saved(&m_window, &ui::MainWindow::globalSettingsChanged);

    ASSERT_TRUE(with_open_picker(m_window, [&](ui::ModelPicker* picker) {
        EXPECT_TRUE(picker->selected_path().endsWith("/synth-qwen3-256.gguf"));
        EXPECT_EQ(picker->findChild<QSpinBox*>("pickerContext")->value(), 1500);
        const auto& table = *picker->findChild<QTableWidget*>("models");
        const auto rows = table.selectionModel()->selectedRows();
        ASSERT_EQ(rows.size(), 1);
        const int row = rows.front().row();
        EXPECT_TRUE(table.item(row, ui::ModelPicker::kName)->text().endsWith("(loaded)"));
        EXPECT_TRUE(table.item(row, ui::ModelPicker::kMemory)->text().endsWith(" at 1500"));
        ASSERT_GT(picker->row_count(), 10);

        auto* folders = picker->findChild<QListWidget*>("modelFolders");
        ASSERT_EQ(folders->count(), 1);
        folders->setCurrentRow(0);
        QTest::mouseClick(picker->findChild<QPushButton*>("removeFolder"), Qt::LeftButton);
        for (const auto& entry : picker->entries()) {  // other apps' folders may hold some
            EXPECT_FALSE(QString::fromStdString(entry.info.path.string()).startsWith(shared))
                << entry.info.path;
        }
    }));
    EXPECT_TRUE(m_window.global_settings().model_folders.isEmpty());
    ASSERT_EQ(saved.size(), 1);  // main() saves each change to the settings file
    EXPECT_TRUE(saved.front().front().value<core::GlobalSettings>().model_folders.isEmpty());
}

// The window hands the picker its remote connections and saves what the user changes there.
TEST_F(ModelPickerWindowTest, AnEditedConnectionIsSaved) {
    auto global = m_window.global_settings();
    global.connections = {{.name = "Lab", .base_url = "http://127.0.0.1:1/v1"}};
    m_window.apply_global_settings(global);
    QSignalSpy saved(&m_window, &ui::MainWindow::globalSettingsChanged);
    const std::vector<core::RemoteConnection> edited{
        {.name = "Lab", .base_url = "http://127.0.0.1:2/v1"}};

    ASSERT_TRUE(with_open_picker(m_window, [&](ui::ModelPicker* picker) {
        auto* connections = picker->findChild<QListWidget*>("connections");
        ASSERT_EQ(connections->count(), 1);
        EXPECT_EQ(connections->currentItem()->text(), "Lab");
        auto* url = picker->findChild<QLineEdit*>("connectionUrl");
        url->setText("http://127.0.0.1:2/v1");
        picker->findChild<QPushButton*>("saveConnection")->click();
    }));
    EXPECT_EQ(m_window.global_settings().connections, edited);
    ASSERT_EQ(saved.size(), 1);
    EXPECT_EQ(saved.front().front().value<core::GlobalSettings>().connections, edited);
}

}  // namespace
}  // namespace hearth::test
