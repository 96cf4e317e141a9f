// The model picker on the real shared files: one row per catalog entry, with its metadata, the
// loaded model marked, refusals in the row, sorting, filtering and the user's folders.
#include "ui/model_picker.h"

#include <gtest/gtest.h>

#include <QApplication>
#include <QHeaderView>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTableWidget>
#include <QTest>
#include <QTimer>

#include <algorithm>
#include <map>
#include <optional>

#include "app/core/model_catalog.h"
#include "tests/support/shared_data.h"
#include "tests/support/temp_files.h"
#include "tests/support/unsupported_files.h"
#include "ui/get_models_dialog.h"

namespace hearth::ui {
namespace {

using Column = ModelPicker::Column;

std::filesystem::path shared_models() {
    return test::shared_dir() / "models";
}

ModelPicker::Scan shared_scan() {
    return [] { return core::scan_models({shared_models()}, {}); };
}

QTableWidget& table_of(const ModelPicker& picker) {
    return *picker.findChild<QTableWidget*>("models");
}

// The row listing `file`, or -1.
int row_of(const QTableWidget& table, const QString& file) {
    for (int row = 0; row < table.rowCount(); ++row) {
        if (table.item(row, Column::kFile)->text() == file) return row;
    }
    return -1;
}

// The text in `column` of the row listing `file`, or nothing where no row lists it.
std::optional<QString> cell(const QTableWidget& table, const QString& file, int column) {
    const int row = row_of(table, file);
    if (row < 0) return std::nullopt;
    return table.item(row, column)->text();
}

std::vector<std::string> shown_files(const QTableWidget& table) {
    std::vector<std::string> files;
    for (int row = 0; row < table.rowCount(); ++row) {
        if (!table.isRowHidden(row))
            files.push_back(table.item(row, Column::kFile)->text().toStdString());
    }
    return files;
}

TEST(ModelPicker, ShowsEveryEntryOfTheCatalogWithItsFileName) {
    ModelPicker picker(shared_scan(), {});
    EXPECT_EQ(static_cast<size_t>(picker.row_count()), picker.entries().size());
    const auto& table = table_of(picker);
    const std::map<int, QString> headers{{Column::kName, "Name"},
                                         {Column::kFile, "File"},
                                         {Column::kArchitecture, "Architecture"},
                                         {Column::kSize, "File size"},
                                         {Column::kMemory, "Memory"}};
    for (const auto& [column, header] : headers)
        EXPECT_EQ(table.horizontalHeaderItem(column)->text(), header);
    // Each family by its usual name, with its parameters and memory.
    const std::map<QString, QString> families{
        {"stories260K.gguf", "Llama"},        {"synth-qwen3-256.gguf", "Qwen3"},
        {"synth-gemma2-256.gguf", "Gemma 2"}, {"synth-gemma3-256-Q4_K_M.gguf", "Gemma 3"},
        {"synth-phi3-256.gguf", "Phi-3"},     {"synth-smollm3-256.gguf", "SmolLM3"}};
    for (const auto& [file, family] : families) {
        const auto architecture = cell(table, file, Column::kArchitecture);
        ASSERT_TRUE(architecture.has_value()) << file.toStdString() << " is not listed";
        EXPECT_EQ(*architecture, family) << file.toStdString();
        EXPECT_FALSE(cell(table, file, Column::kParameters)->isEmpty());
        EXPECT_FALSE(cell(table, file, Column::kMemory)->isEmpty());
        // The file column names the file alone; its path is in the tooltip.
        const int row = row_of(table, file);
        EXPECT_TRUE(table.item(row, Column::kFile)->toolTip().endsWith("/" + file));
    }
}

// A mixture of experts' parameters column says how many one token reads; a dense model's gives
// the one count.
TEST(ModelPicker, AMixtureOfExpertsShowsItsTotalAndActiveParameters) {
    ModelPicker picker(shared_scan(), {});
    const auto& table = table_of(picker);
    EXPECT_EQ(cell(table, "synth-qwen3moe-256-Q4_K_M.gguf", Column::kParameters),
              "3M total, 2M active");
    EXPECT_EQ(cell(table, "synth-qwen3moe-256-Q4_K_M.gguf", Column::kArchitecture), "Qwen3 MoE");
    const auto dense = cell(table, "synth-qwen3-256-Q4_K_M.gguf", Column::kParameters);
    ASSERT_TRUE(dense.has_value());
    EXPECT_FALSE(dense->isEmpty());
    EXPECT_FALSE(dense->contains("active")) << dense->toStdString();
}

// The quantisation column says what a mix is made of, by share of the parameters.
TEST(ModelPicker, ShowsTheQuantisationMixOfEachFile) {
    ModelPicker picker(shared_scan(), {});
    const std::map<QString, QString> mixes{
        {"synth-llama-256-Q3_K_M.gguf", "Q3_K_M: Q3_K 61%, Q4_K 29%, Q6_K 7%, Q5_K 4%"},
        {"synth-llama-256-IQ4_XS-mix.gguf", "IQ4_XS: IQ4_XS 93%, Q6_K 7%"},
        {"synth-llama-256-Q2_K.gguf", "Q2_K"}};
    for (const auto& [file, mix] : mixes)
        EXPECT_EQ(cell(table_of(picker), file, Column::kQuantization), mix) << file.toStdString();
}

// A file Hearth refuses says why in its row, in place of the architecture, not only in a
// tooltip; it cannot be loaded.
TEST(ModelPicker, ARefusedFileSaysWhyInItsRow) {
    ModelPicker picker(shared_scan(), {});
    auto& table = table_of(picker);
    auto* load = picker.findChild<QPushButton*>("loadModel");
    int refused = 0;
    for (const auto& entry : test::unsupported_files()) {
        if (entry.kind == test::MissingKind::TemplateFeature) continue;
        const QString file = QString::fromUtf8(entry.file.data(), entry.file.size());
        const int row = row_of(table, file);
        ASSERT_GE(row, 0) << entry.file;
        const std::string reason = table.item(row, Column::kArchitecture)->text().toStdString();
        EXPECT_TRUE(reason.starts_with("Refused: unsupported ")) << reason;
        EXPECT_TRUE(test::names_whole_word(reason, entry.missing)) << reason;
        EXPECT_FALSE(QString::fromStdString(reason).contains('/')) << reason;  // no path
        table.selectRow(row);
        EXPECT_FALSE(load->isEnabled()) << entry.file;
        EXPECT_TRUE(picker.selected_path().isEmpty());
        ++refused;
    }
    // Every other file reads, so its architecture column names a family.
    for (int row = 0; row < table.rowCount(); ++row) {
        const QString architecture = table.item(row, Column::kArchitecture)->text();
        refused -= architecture.startsWith("Refused:") || architecture.startsWith("Unreadable:");
    }
    EXPECT_EQ(refused, 0);
}

TEST(ModelPicker, TheLoadedModelIsMarkedAndSelected) {
    const auto loaded = shared_models() / "synth-qwen3-256.gguf";
    ModelPicker picker(shared_scan(), {.loaded_path = QString::fromStdString(loaded.string())});
    const auto& table = table_of(picker);
    const int row = row_of(table, "synth-qwen3-256.gguf");
    ASSERT_GE(row, 0);
    EXPECT_TRUE(table.item(row, Column::kName)->text().endsWith("(loaded)"));
    EXPECT_TRUE(table.item(row, Column::kName)->font().bold());
    EXPECT_EQ(picker.selected_path().toStdString(), loaded.string());
    int marked = 0;
    for (int other = 0; other < table.rowCount(); ++other)
        marked += table.item(other, Column::kName)->text().contains("(loaded)");
    EXPECT_EQ(marked, 1);
}

// Clicking a header sorts by that column, numbers as numbers; a second click reverses.
TEST(ModelPicker, ClickingAHeaderSortsByThatColumn) {
    ModelPicker picker(shared_scan(), {});
    picker.show();
    auto& table = table_of(picker);
    auto* header = table.horizontalHeader();
    const auto click = [&](int column) {
        const QPoint at(header->sectionViewportPosition(column) + header->sectionSize(column) / 2,
                        header->height() / 2);
        QTest::mouseClick(header->viewport(), Qt::LeftButton, {}, at);
    };
    const auto sizes = [&] {
        std::vector<uint64_t> bytes;
        for (int row = 0; row < table.rowCount(); ++row) {
            const auto file =
                shared_models() / table.item(row, Column::kFile)->text().toStdString();
            bytes.push_back(std::filesystem::file_size(file));
        }
        return bytes;
    };
    click(Column::kSize);
    const auto ascending = sizes();
    EXPECT_TRUE(std::is_sorted(ascending.begin(), ascending.end()));
    EXPECT_LT(ascending.front(), ascending.back());
    click(Column::kSize);
    const auto descending = sizes();
    EXPECT_TRUE(std::is_sorted(descending.rbegin(), descending.rend()));
    // The selection still names the file its row shows (the largest may be refused).
    const int row = row_of(table, "synth-qwen3-256.gguf");
    table.selectRow(row);
    EXPECT_TRUE(picker.selected_path().endsWith("/synth-qwen3-256.gguf"));
    click(Column::kFile);
    const auto files = shown_files(table);
    EXPECT_TRUE(std::is_sorted(files.begin(), files.end(), [](const auto& a, const auto& b) {
        return QString::fromStdString(a).localeAwareCompare(QString::fromStdString(b)) < 0;
    }));
}

// The filter matches the name, the architecture or the file, whatever the case; sorting
// afterwards keeps it.
TEST(ModelPicker, TheFilterShowsOnlyMatchingRows) {
    ModelPicker picker(shared_scan(), {});
    picker.show();
    auto& table = table_of(picker);
    auto* filter = picker.findChild<QLineEdit*>("modelFilter");
    QTest::keyClicks(filter, "phi-3");  // the architecture's usual name, not in the file names
    auto phi3 = shown_files(table);
    std::sort(phi3.begin(), phi3.end());
    EXPECT_EQ(phi3,
              (std::vector<std::string>{"synth-phi3-256-Q4_K_M.gguf", "synth-phi3-256.gguf"}));
    filter->clear();
    QTest::keyClicks(filter, "Q4_K_M");
    const auto files = shown_files(table);
    EXPECT_GE(files.size(), 5u);
    for (const auto& file : files) EXPECT_TRUE(file.find("Q4_K_M") != std::string::npos) << file;
    table.sortByColumn(Column::kSize, Qt::DescendingOrder);
    EXPECT_EQ(shown_files(table).size(), files.size());
    for (const auto& file : shown_files(table))
        EXPECT_TRUE(file.find("Q4_K_M") != std::string::npos) << file;
    filter->clear();
    EXPECT_EQ(shown_files(table).size(), static_cast<size_t>(table.rowCount()));
}

// The memory column is for the context a load would get: the conversation's setting, or each
// model's trained length up to 4096; changing the context changes every row.
TEST(ModelPicker, TheMemoryIsForTheContextALoadWouldGet) {
    ModelPicker picker(shared_scan(), {.requested_context = 0});
    const auto& table = table_of(picker);
    const auto expect_memory = [&](const char* file, int context) {
        const auto info = read_model_info(shared_models() / file);
        EXPECT_EQ(
            cell(table, file, Column::kMemory),
            QStringLiteral("%1 at %2").arg(byte_size_text(info.memory_bytes(context))).arg(context))
            << file;
    };
    expect_memory("synth-phi3-256.gguf", 4096);  // trained on 16384
    expect_memory("stories260K.gguf", 2048);
    expect_memory("synth-qwen3-256.gguf", 512);
    picker.findChild<QSpinBox*>("pickerContext")->setValue(1000);
    expect_memory("synth-phi3-256.gguf", 1000);
    expect_memory("synth-qwen3-256.gguf", 1000);

    ModelPicker set(shared_scan(), {.requested_context = 3000});
    EXPECT_EQ(set.findChild<QSpinBox*>("pickerContext")->value(), 3000);
    EXPECT_TRUE(cell(table_of(set), "stories260K.gguf", Column::kMemory)->endsWith(" at 3000"));
}

// A folder the user added can be removed: the picker asks the window to forget it and stops
// listing its models.
TEST(ModelPicker, RemovingAFolderStopsListingItsModels) {
    const test::TempDirectory directory;
    directory.write("story.gguf", test::read_bytes(test::model_path("stories260K.gguf")));
    const QString folder = QString::fromStdString(directory.path().string());
    QStringList folders{folder};
    ModelPicker picker(
        [&] {
            std::vector<std::filesystem::path> paths;
            for (const auto& added : folders) paths.emplace_back(added.toStdString());
            return core::scan_models(paths, {});
        },
        {.folders = folders});
    QObject::connect(&picker, &ModelPicker::removeFolderRequested,
                     [&](const QString& removed) { folders.removeAll(removed); });
    QSignalSpy removed(&picker, &ModelPicker::removeFolderRequested);
    picker.show();
    ASSERT_EQ(picker.row_count(), 1);
    auto* list = picker.findChild<QListWidget*>("modelFolders");
    auto* remove = picker.findChild<QPushButton*>("removeFolder");
    ASSERT_EQ(list->count(), 1);
    EXPECT_EQ(list->item(0)->text(), folder);
    EXPECT_FALSE(remove->isEnabled());  // nothing selected yet
    list->setCurrentRow(0);
    ASSERT_TRUE(remove->isEnabled());
    QTest::mouseClick(remove, Qt::LeftButton);
    ASSERT_EQ(removed.count(), 1);
    EXPECT_EQ(removed.front().front().toString(), folder);
    EXPECT_EQ(list->count(), 0);
    EXPECT_TRUE(picker.folders().isEmpty());
    EXPECT_EQ(picker.row_count(), 0);
}

// "Get models…" opens the download dialog over the picker; closing it comes back to the picker.
TEST(ModelPicker, GetModelsOpensTheDownloadDialog) {
    ModelPicker picker(shared_scan(), {});
    picker.show();
    auto* button = picker.findChild<QPushButton*>(QStringLiteral("getModels"));
    ASSERT_NE(button, nullptr);
    QString title;
    QTimer watch;
    QObject::connect(&watch, &QTimer::timeout, [&] {
        auto* dialog = qobject_cast<GetModelsDialog*>(QApplication::activeModalWidget());
        if (!dialog || !dialog->isVisible()) return;
        title = dialog->windowTitle();
        EXPECT_EQ(dialog->parentWidget(), &picker);
        dialog->reject();
    });
    watch.start(10);
    // A dialog that never shows must not hang the test: close whatever is modal after a bound.
    QTimer::singleShot(10000, [] {
        if (QWidget* modal = QApplication::activeModalWidget()) modal->close();
    });
    QTest::mouseClick(button, Qt::LeftButton);
    watch.stop();
    EXPECT_FALSE(title.isEmpty());
    EXPECT_TRUE(title.contains("Hugging Face")) << title.toStdString();
    EXPECT_TRUE(picker.isVisible());
}

}  // namespace
}  // namespace hearth::ui
