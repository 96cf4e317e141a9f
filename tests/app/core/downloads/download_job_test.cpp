#include "app/core/downloads/download_job.h"

#include <gtest/gtest.h>

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>

#include <fstream>

#include "app/core/model_catalog.h"
#include "tests/support/download_waits.h"
#include "tests/support/hub_test_server.h"
#include "tests/support/shared_data.h"
#include "tests/support/temp_files.h"

namespace hearth::downloads {
namespace {

constexpr const char* kRepository = "hearth-test/stories";
constexpr const char* kFile = "stories260K.gguf";

class DownloadJobTest : public ::testing::Test {
protected:
    DownloadJobTest()
        : m_server({{kRepository, m_files}}),
          m_hub(HubSettings{QUrl(QString::fromStdString(m_server.url())), {}}) {}

    // The file as the Hub's tree lists it.
    HubFile listed() const {
        const auto& file = served();
        return {QString::fromStdString(file.path), file.bytes.size(),
                QString::fromStdString(file.sha256), QString::fromStdString(file.git_oid)};
    }
    const test::HubTestFile& served() const { return m_files.front(); }
    QString folder() const { return QString::fromStdString(m_folder.path().string()); }
    std::unique_ptr<DownloadJob> job() {
        return std::make_unique<DownloadJob>(m_hub, kRepository, listed(), folder());
    }
    QByteArray written(const QString& path) const {
        QFile in(path);
        return in.open(QIODevice::ReadOnly) ? in.readAll() : QByteArray();
    }
    // The ranges the file requests (those of /cdn, after the redirect) asked for, in order.
    // Qt sends a GET again when a kept-alive connection closes before any answer (a request
    // nothing was received for), so repeats of one request count once.
    std::vector<std::string> file_ranges() const {
        std::vector<std::string> ranges;
        for (const auto& request : m_server.requests()) {
            if (request.path.rfind("/cdn/", 0) == 0 &&
                (ranges.empty() || ranges.back() != request.range)) {
                ranges.push_back(request.range);
            }
        }
        return ranges;
    }
    std::vector<core::ModelEntry> catalog() const {
        return core::scan_models({m_folder.path()}, {});
    }

    std::vector<test::HubTestFile> m_files{test::hub_file(kFile, test::model_path(kFile))};
    test::HubTestServer m_server;
    HubClient m_hub;
    test::TempDirectory m_folder;
};

// The whole file arrives through the redirect, is verified, and is then what the model
// catalog lists; no part or state file is left beside it.
TEST_F(DownloadJobTest, AWholeDownloadIsVerifiedAndThenListedByTheCatalog) {
    auto download = job();
    const auto outcome = test::run_job(*download);
    ASSERT_TRUE(outcome.ended);
    ASSERT_FALSE(outcome.error) << outcome.error->text.toStdString();
    EXPECT_EQ(outcome.path, download->final_path());
    EXPECT_EQ(written(outcome.path), served().bytes);
    EXPECT_FALSE(QFileInfo::exists(download->part_path()));
    EXPECT_FALSE(QFileInfo::exists(download->state_path()));
    ASSERT_FALSE(outcome.progress.empty());
    EXPECT_EQ(outcome.progress.back().received, served().bytes.size());
    EXPECT_EQ(outcome.progress.back().total, served().bytes.size());
    const auto entries = catalog();
    ASSERT_EQ(entries.size(), 1u);
    EXPECT_TRUE(entries.front().error.isEmpty()) << entries.front().error.toStdString();
    EXPECT_EQ(entries.front().info.path.filename(), kFile);
}

// Paused half-way, the part is never offered as a model; a new job (as after a restart) resumes
// it with a Range request from where it stopped, and the result verifies.
TEST_F(DownloadJobTest, APausedDownloadIsNotListedAndResumesAfterARestartWithRange) {
    // The server holds the body after 300 000 bytes until the test has paused.
    constexpr qint64 kHeld = 300000;
    const auto released = m_folder.path() / "released";
    m_server.hold_next_file_after(kHeld, released);
    qint64 paused_at = 0;
    {
        auto download = job();
        auto* raw = download.get();
        const auto outcome = test::run_job(*download, [&](const DownloadProgress& progress) {
            if (progress.received >= kHeld && paused_at == 0) {
                paused_at = progress.received;
                raw->pause();
                std::ofstream(released).put(1);  // lets the server go on
            }
        });
        ASSERT_TRUE(outcome.ended);
        ASSERT_FALSE(outcome.error) << outcome.error->text.toStdString();
        EXPECT_EQ(download->state(), DownloadState::Paused);
        ASSERT_GT(paused_at, 0);
        ASSERT_TRUE(QFileInfo::exists(download->part_path()));
        EXPECT_TRUE(catalog().empty());  // a part is not a model
    }
    const qint64 kept = QFileInfo(job()->part_path()).size();
    EXPECT_EQ(paused_at, kHeld);
    EXPECT_EQ(kept, kHeld);

    auto resumed = job();
    const auto outcome = test::run_job(*resumed);
    ASSERT_TRUE(outcome.ended);
    ASSERT_FALSE(outcome.error) << outcome.error->text.toStdString();
    EXPECT_EQ(written(outcome.path), served().bytes);
    const auto ranges = file_ranges();
    ASSERT_EQ(ranges.size(), 2u);
    EXPECT_EQ(ranges[0], "");
    EXPECT_EQ(ranges[1], "bytes=" + std::to_string(kept) + "-");
    EXPECT_EQ(catalog().size(), 1u);
}

// The connection drops after 200 000 bytes: the job asks for the rest with Range and the
// file still verifies.
TEST_F(DownloadJobTest, ACutConnectionResumesWithRangeAndTheFileVerifies) {
    constexpr long long kCut = 200000;
    m_server.cut_next_file_after(kCut);
    auto download = job();
    const auto outcome = test::run_job(*download);
    ASSERT_TRUE(outcome.ended);
    ASSERT_FALSE(outcome.error) << outcome.error->text.toStdString();
    EXPECT_EQ(written(outcome.path), served().bytes);
    const auto ranges = file_ranges();
    ASSERT_EQ(ranges.size(), 2u);
    EXPECT_EQ(ranges[1], "bytes=" + std::to_string(kCut) + "-");
}

// One flipped byte: the sha256 differs from the LFS object id, the download is deleted and the
// error says why; nothing is listed.
TEST_F(DownloadJobTest, ACorruptedByteFailsTheChecksumAndTheDownloadIsDeleted) {
    m_server.corrupt(kFile, 123456);
    auto download = job();
    const auto outcome = test::run_job(*download);
    ASSERT_TRUE(outcome.ended);
    ASSERT_TRUE(outcome.error);
    EXPECT_EQ(outcome.error->kind, HubErrorKind::Integrity);
    EXPECT_TRUE(outcome.error->text.contains("does not match the Hub's checksum"))
        << outcome.error->text.toStdString();
    EXPECT_TRUE(outcome.error->text.contains(QString::fromStdString(served().sha256)));
    EXPECT_TRUE(outcome.error->text.contains("deleted"));
    EXPECT_FALSE(QFileInfo::exists(download->final_path()));
    EXPECT_FALSE(QFileInfo::exists(download->part_path()));
    EXPECT_FALSE(QFileInfo::exists(download->state_path()));
    EXPECT_TRUE(catalog().empty());
}

// A file larger than the free space is refused before a byte is asked for.
TEST_F(DownloadJobTest, AFileLargerThanTheFreeSpaceIsRefusedBeforeDownloading) {
    HubFile huge = listed();
    huge.size = qint64{1} << 55;  // 32 PiB
    DownloadJob download(m_hub, kRepository, huge, folder());
    const auto outcome = test::run_job(download);
    ASSERT_TRUE(outcome.ended);
    ASSERT_TRUE(outcome.error);
    EXPECT_EQ(outcome.error->kind, HubErrorKind::Disk);
    EXPECT_TRUE(outcome.error->text.contains("Not enough disk space"))
        << outcome.error->text.toStdString();
    EXPECT_TRUE(file_ranges().empty());
    EXPECT_FALSE(QFileInfo::exists(download.part_path()));
}

// Cancelling deletes what was downloaded.
TEST_F(DownloadJobTest, CancellingDeletesThePart) {
    auto download = job();
    auto* raw = download.get();
    const auto outcome = test::run_job(*download, [&](const DownloadProgress& progress) {
        if (progress.received > 0 && raw->state() == DownloadState::Running) raw->cancel();
    });
    ASSERT_TRUE(outcome.ended);
    ASSERT_TRUE(outcome.error);
    EXPECT_EQ(outcome.error->kind, HubErrorKind::Cancelled);
    EXPECT_FALSE(QFileInfo::exists(download->part_path()));
    EXPECT_FALSE(QFileInfo::exists(download->state_path()));
}

// A part left by a different file (its state file names another sha256) is not continued.
TEST_F(DownloadJobTest, APartOfAnotherFileIsStartedAgain) {
    {
        QFile part(job()->part_path());
        ASSERT_TRUE(part.open(QIODevice::WriteOnly));
        part.write(QByteArray(1000, 'x'));
        QFile state(job()->state_path());
        ASSERT_TRUE(state.open(QIODevice::WriteOnly));
        state.write(R"({"repository":"other/repo","path":"stories260K.gguf","size":1})");
    }
    auto download = job();
    const auto outcome = test::run_job(*download);
    ASSERT_FALSE(outcome.error) << outcome.error->text.toStdString();
    EXPECT_EQ(written(outcome.path), served().bytes);
    EXPECT_EQ(file_ranges(), std::vector<std::string>{""});
}

// 404 for a file the repository does not have, named in the error.
TEST_F(DownloadJobTest, AMissingFileIsNamedAsNotFound) {
    HubFile missing = listed();
    missing.path = "missing.gguf";
    DownloadJob download(m_hub, kRepository, missing, folder());
    const auto outcome = test::run_job(download);
    ASSERT_TRUE(outcome.error);
    EXPECT_EQ(outcome.error->kind, HubErrorKind::NotFound);
    EXPECT_EQ(outcome.error->status, 404);
    EXPECT_TRUE(outcome.error->text.contains("missing.gguf")) << outcome.error->text.toStdString();
}

// 429 on the file: the download stops saying when to try again, and nothing is written.
TEST_F(DownloadJobTest, RateLimitingStopsTheDownloadWithRetryAfter) {
    m_server.limit_next(1, 30);
    auto download = job();
    const auto outcome = test::run_job(*download);
    ASSERT_TRUE(outcome.error);
    EXPECT_EQ(outcome.error->kind, HubErrorKind::RateLimited);
    EXPECT_EQ(outcome.error->retry_after_seconds, 30);
    EXPECT_TRUE(outcome.error->text.contains("try again in 30 seconds"))
        << outcome.error->text.toStdString();
    EXPECT_FALSE(QFileInfo::exists(download->final_path()));
    EXPECT_EQ(QFileInfo(download->part_path()).size(), 0);
    EXPECT_TRUE(catalog().empty());
}

// A part that holds every byte (the app stopped before the check) is checked and placed without
// asking the Hub for anything.
TEST_F(DownloadJobTest, ACompletePartIsVerifiedWithoutDownloading) {
    {
        auto first = job();
        QFile part(first->part_path());
        ASSERT_TRUE(part.open(QIODevice::WriteOnly));
        part.write(served().bytes);
        QFile state(first->state_path());
        ASSERT_TRUE(state.open(QIODevice::WriteOnly));
        state.write(QJsonDocument(QJsonObject{{"repository", kRepository},
                                              {"path", listed().path},
                                              {"size", listed().size},
                                              {"sha256", listed().sha256},
                                              {"oid", listed().git_oid}})
                        .toJson());
    }
    auto download = job();
    const auto outcome = test::run_job(*download);
    ASSERT_FALSE(outcome.error) << outcome.error->text.toStdString();
    EXPECT_EQ(written(outcome.path), served().bytes);
    EXPECT_TRUE(file_ranges().empty());
}

}  // namespace
}  // namespace hearth::downloads
