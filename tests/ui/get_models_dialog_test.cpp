// The Get models dialog against the loopback hub, offscreen: search, a repository's models with
// the memory they need before downloading, a download with progress that arrives verified, a
// gated repository that needs the token, pause and resume.
#include "ui/get_models_dialog.h"

#include <gtest/gtest.h>

#include <QDir>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QProgressBar>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTest>

#include <fstream>

#include "engine/format/gguf_file.h"
#include "tests/support/hub_test_server.h"
#include "tests/support/shared_data.h"
#include "tests/support/split_model.h"
#include "tests/support/temp_files.h"
#include "ui/model_picker.h"

namespace hearth::ui {
namespace {

constexpr int kWaitMs = 20000;
constexpr const char* kToken = "hf_dialogtoken";
constexpr const char* kFile = "stories260K.gguf";

// A repository holding a real model split into three parts, written into `folder`; the search
// answer gives no download count for it.
test::HubTestRepository split_repository(const std::filesystem::path& folder) {
    const auto parts = test::write_split_model(
        *GgufFile::open(test::model_path("synth-llama-256-Q4_K_M.gguf")), folder / "llama", 3);
    test::HubTestRepository repository{"hearth-test/split", {}};
    for (const auto& part : parts) {
        repository.files.push_back(test::hub_file(part.filename().string(), part));
    }
    return repository;
}

class GetModelsDialogTest : public ::testing::Test {
protected:
    GetModelsDialogTest()
        : m_server({{"hearth-test/stories",
                     {test::hub_file(kFile, test::model_path(kFile)),
                      test::hub_file("synth-llama-256-Q4_K_M.gguf",
                                     test::model_path("synth-llama-256-Q4_K_M.gguf"))},
                     false,
                     4321},
                    {"hearth-test/gated", {test::hub_file(kFile, test::model_path(kFile))}, true},
                    split_repository(m_split_parts.path())},
                   kToken) {}

    std::unique_ptr<GetModelsDialog> dialog() {
        GetModelsDialog::Setup setup;
        setup.hub = {QUrl(QString::fromStdString(m_server.url())), {}};
        setup.folder = QString::fromStdString(m_folder.path().string());
        setup.requested_context = 512;
        setup.load_token = [this] { return m_stored_token; };
        setup.save_token = [this](const QString& token) {
            m_saved_token = token;
            return QStringLiteral("saved");
        };
        auto made = std::make_unique<GetModelsDialog>(setup);
        made->show();
        return made;
    }
    template <typename T>
    static T* child(const QWidget& parent, const char* name) {
        return parent.findChild<T*>(QString::fromLatin1(name));
    }
    static void search(const GetModelsDialog& dialog, const QString& text) {
        child<QLineEdit>(dialog, "hubQuery")->setText(text);
        QTest::mouseClick(child<QPushButton>(dialog, "hubSearch"), Qt::LeftButton);
    }
    static QString cell(const GetModelsDialog& dialog, int row, int column) {
        const auto* item = child<QTableWidget>(dialog, "repositoryFiles")->item(row, column);
        return item ? item->text() : QString();
    }
    static QString status(const GetModelsDialog& dialog) {
        return child<QLabel>(dialog, "downloadStatus")->text();
    }
    // Where the test saves pictures of the dialog, when the closing note wants them.
    static void picture(GetModelsDialog& dialog, const char* name) {
        const QString folder = qEnvironmentVariable("HEARTH_DOWNLOAD_SCREENSHOTS");
        if (!folder.isEmpty()) dialog.grab().save(QDir(folder).filePath(name));
    }

    test::TempDirectory m_split_parts;  // before m_server, which serves what it holds
    test::HubTestServer m_server;
    test::TempDirectory m_folder;
    QString m_saved_token;
    QString m_stored_token;  // what the keyring holds when a dialog opens
};

// Search, choose the repository, see each model's memory before downloading, download one:
// it arrives verified in the folder, and the dialog says so.
TEST_F(GetModelsDialogTest, SearchEstimateAndDownloadAModel) {
    auto window = dialog();
    search(*window, "stories");
    auto* results = child<QListWidget>(*window, "searchResults");
    ASSERT_TRUE(QTest::qWaitFor([&] { return results->count() == 1; }, kWaitMs));
    EXPECT_TRUE(results->item(0)->text().contains("hearth-test/stories"));
    EXPECT_TRUE(results->item(0)->text().contains("4321 downloads"));
    results->setCurrentRow(0);
    auto* files = child<QTableWidget>(*window, "repositoryFiles");
    ASSERT_TRUE(QTest::qWaitFor([&] { return files->rowCount() == 2; }, kWaitMs));
    const int row = cell(*window, 0, GetModelsDialog::kModel) == "stories260K" ? 0 : 1;
    EXPECT_EQ(cell(*window, 1 - row, GetModelsDialog::kQuantization), "Q4_K_M");
    EXPECT_EQ(cell(*window, row, GetModelsDialog::kSize), "1.1 MiB");

    files->selectRow(row);
    ASSERT_TRUE(QTest::qWaitFor(
        [&] { return cell(*window, row, GetModelsDialog::kFits).startsWith("Fits"); }, kWaitMs))
        << cell(*window, row, GetModelsDialog::kMemory).toStdString();
    const auto on_disk = read_model_info(test::model_path(kFile));
    EXPECT_EQ(cell(*window, row, GetModelsDialog::kMemory),
              QStringLiteral("%1 at 512").arg(byte_size_text(on_disk.memory_bytes(512))));
    EXPECT_LT(m_server.file_bytes_sent(), 100000);  // the header, not the file
    picture(*window, "get-models-estimate.png");

    QSignalSpy downloaded(window.get(), &GetModelsDialog::modelDownloaded);
    auto* start = child<QPushButton>(*window, "startDownload");
    ASSERT_TRUE(start->isEnabled());
    QTest::mouseClick(start, Qt::LeftButton);
    ASSERT_TRUE(QTest::qWaitFor([&] { return downloaded.count() == 1; }, kWaitMs))
        << status(*window).toStdString();
    const QString path = downloaded.front().front().toString();
    EXPECT_EQ(path, QDir(QString::fromStdString(m_folder.path().string())).filePath(kFile));
    QFile arrived(path);
    ASSERT_TRUE(arrived.open(QIODevice::ReadOnly));
    QFile original(QString::fromStdString(test::model_path(kFile).string()));
    ASSERT_TRUE(original.open(QIODevice::ReadOnly));
    EXPECT_EQ(arrived.readAll(), original.readAll());
    EXPECT_TRUE(status(*window).contains("Downloaded and verified"))
        << status(*window).toStdString();
    EXPECT_TRUE(start->isEnabled());
    picture(*window, "get-models-downloaded.png");
}

// A pasted repository id opens it directly; gated, it says a token is needed; with the token
// typed (and saved to the keyring) its model downloads.
TEST_F(GetModelsDialogTest, AGatedRepositoryAsksForTheTokenAndThenDownloads) {
    auto window = dialog();
    search(*window, "hearth-test/gated");
    ASSERT_TRUE(QTest::qWaitFor([&] { return status(*window).contains("HTTP 401"); }, kWaitMs));
    EXPECT_TRUE(status(*window).contains("needs an access token")) << status(*window).toStdString();
    picture(*window, "get-models-gated.png");

    child<QLineEdit>(*window, "hubToken")->setText(kToken);
    QTest::mouseClick(child<QPushButton>(*window, "saveToken"), Qt::LeftButton);
    ASSERT_TRUE(QTest::qWaitFor([&] { return status(*window) == "saved"; }, kWaitMs));
    EXPECT_EQ(m_saved_token, kToken);
    search(*window, "https://huggingface.co/hearth-test/gated/blob/main/stories260K.gguf");
    auto* files = child<QTableWidget>(*window, "repositoryFiles");
    ASSERT_TRUE(QTest::qWaitFor([&] { return files->rowCount() == 1; }, kWaitMs));
    ASSERT_TRUE(QTest::qWaitFor([&] { return !files->selectedItems().isEmpty(); }, kWaitMs));
    QSignalSpy downloaded(window.get(), &GetModelsDialog::modelDownloaded);
    QTest::mouseClick(child<QPushButton>(*window, "startDownload"), Qt::LeftButton);
    ASSERT_TRUE(QTest::qWaitFor([&] { return downloaded.count() == 1; }, kWaitMs))
        << status(*window).toStdString();
}

// Pause keeps the part and says so; Resume continues it with a Range request to the end.
// A token kept from before is in the field when the dialog opens, and is sent.
TEST_F(GetModelsDialogTest, AStoredTokenIsUsed) {
    m_stored_token = kToken;
    auto window = dialog();
    auto* token = child<QLineEdit>(*window, "hubToken");
    ASSERT_TRUE(QTest::qWaitFor([&] { return token->text() == kToken; }, kWaitMs));
    search(*window, "hearth-test/gated");
    auto* files = child<QTableWidget>(*window, "repositoryFiles");
    ASSERT_TRUE(QTest::qWaitFor([&] { return files->rowCount() == 1; }, kWaitMs))
        << status(*window).toStdString();
    EXPECT_TRUE(m_server.requests().back().authorised);
}

TEST_F(GetModelsDialogTest, PauseAndResume) {
    const auto released = m_folder.path() / "released";
    m_server.hold_next_file_after(300000, released);
    auto window = dialog();
    search(*window, "hearth-test/stories:stories260K.gguf");
    ASSERT_TRUE(QTest::qWaitFor(
        [&] { return cell(*window, 0, GetModelsDialog::kFits).startsWith("Fits"); }, kWaitMs));
    EXPECT_EQ(cell(*window, 0, GetModelsDialog::kQuantization), "F32");  // from the header
    QTest::mouseClick(child<QPushButton>(*window, "startDownload"), Qt::LeftButton);
    auto* progress = child<QProgressBar>(*window, "downloadProgress");
    ASSERT_TRUE(QTest::qWaitFor([&] { return progress->value() >= 250; }, kWaitMs));
    auto* pause = child<QPushButton>(*window, "pauseDownload");
    QTest::mouseClick(pause, Qt::LeftButton);
    EXPECT_EQ(pause->text(), "Resume");
    EXPECT_TRUE(status(*window).contains("Paused")) << status(*window).toStdString();
    EXPECT_TRUE(progress->format().contains(" of ")) << progress->format().toStdString();
    picture(*window, "get-models-paused.png");
    std::ofstream(released).put(1);  // the held response may end now

    QSignalSpy downloaded(window.get(), &GetModelsDialog::modelDownloaded);
    QTest::mouseClick(pause, Qt::LeftButton);
    ASSERT_TRUE(QTest::qWaitFor([&] { return downloaded.count() == 1; }, kWaitMs))
        << status(*window).toStdString();
    EXPECT_EQ(m_server.requests().back().range, "bytes=300000-");
}

// A model split into parts is one row whose estimate, read from every part's header, is what the
// picker shows for the parts once downloaded. The status line counts one model in the singular
// and, once it is selected, says what Download does; a search result the Hub gives no download
// count for shows none (not "0 downloads").
TEST_F(GetModelsDialogTest, ASplitModelIsOneRowWithTheDownloadedModelsEstimate) {
    auto window = dialog();
    search(*window, "split");
    auto* results = child<QListWidget>(*window, "searchResults");
    ASSERT_TRUE(QTest::qWaitFor([&] { return results->count() == 1; }, kWaitMs));
    EXPECT_EQ(results->item(0)->text(), "hearth-test/split");
    results->setCurrentRow(0);
    auto* files = child<QTableWidget>(*window, "repositoryFiles");
    ASSERT_TRUE(QTest::qWaitFor([&] { return files->rowCount() == 1; }, kWaitMs));
    EXPECT_EQ(cell(*window, 0, GetModelsDialog::kModel), "llama (3 parts)");
    EXPECT_EQ(status(*window), "hearth-test/split: 1 model. Select it to see the memory it needs.");

    files->selectRow(0);
    EXPECT_TRUE(status(*window).startsWith("llama selected (")) << status(*window).toStdString();
    EXPECT_FALSE(status(*window).contains("Select")) << status(*window).toStdString();
    ASSERT_TRUE(QTest::qWaitFor(
        [&] { return cell(*window, 0, GetModelsDialog::kFits).startsWith("Fits"); }, kWaitMs))
        << cell(*window, 0, GetModelsDialog::kMemory).toStdString();
    uintmax_t part_bytes = 0;
    std::filesystem::path first;
    for (const auto& entry : std::filesystem::directory_iterator(m_split_parts.path())) {
        part_bytes += entry.file_size();
        if (entry.path().filename() == "llama-00001-of-00003.gguf") first = entry.path();
    }
    const auto downloaded = read_model_info(first);
    EXPECT_EQ(cell(*window, 0, GetModelsDialog::kMemory),
              QStringLiteral("%1 at 512").arg(byte_size_text(downloaded.memory_bytes(512))));
    EXPECT_LT(m_server.file_bytes_sent() * 4, static_cast<long long>(part_bytes));
}

TEST(TimeLeftText, ReadsAsMinutesAndSeconds) {
    EXPECT_EQ(time_left_text(44.6), "45 s left");
    EXPECT_EQ(time_left_text(200), "3 min 20 s left");
    EXPECT_EQ(time_left_text(7260), "2 h 1 min left");
}

}  // namespace
}  // namespace hearth::ui
