#include "app/core/downloads/download_job.h"

#include <gtest/gtest.h>

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTimer>

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
    HubFile listed() const { return listed_of(served()); }
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
    // A part of `bytes` with the state file that makes a job for `file` resume it.
    static void leave_part(const DownloadJob& job, const HubFile& file, const QByteArray& bytes) {
        QFile part(job.part_path());
        ASSERT_TRUE(part.open(QIODevice::WriteOnly));
        ASSERT_EQ(part.write(bytes), bytes.size());
        QFile state(job.state_path());
        ASSERT_TRUE(state.open(QIODevice::WriteOnly));
        state.write(QJsonDocument(QJsonObject{{"repository", kRepository},
                                              {"path", file.path},
                                              {"size", file.size},
                                              {"sha256", file.sha256},
                                              {"oid", file.git_oid}})
                        .toJson());
    }
    static HubFile listed_of(const test::HubTestFile& file) {
        return {QString::fromStdString(file.path), file.bytes.size(),
                QString::fromStdString(file.sha256), QString::fromStdString(file.git_oid)};
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
    leave_part(*job(), listed(), served().bytes);
    auto download = job();
    const auto outcome = test::run_job(*download);
    ASSERT_FALSE(outcome.error) << outcome.error->text.toStdString();
    EXPECT_EQ(written(outcome.path), served().bytes);
    EXPECT_TRUE(file_ranges().empty());
}

// What a started job emitted, and how often the event loop ran before its first signal.
struct StartTrace {
    bool signalled_inside_start = false;
    int ticks_before_first_signal = -1;
    test::JobOutcome outcome;
};

// Runs `job` with a zero-interval timer counting turns of the event loop.
StartTrace trace_start(DownloadJob& job) {
    StartTrace trace;
    int ticks = 0;
    bool starting = true;
    QTimer ticker;
    ticker.setInterval(0);
    QObject::connect(&ticker, &QTimer::timeout, [&] { ++ticks; });
    const auto first = [&] {
        if (trace.ticks_before_first_signal >= 0) return;
        trace.ticks_before_first_signal = ticks;
        trace.signalled_inside_start = starting;
    };
    QObject::connect(&job, &DownloadJob::progressed, first);
    QObject::connect(&job, &DownloadJob::finished, first);
    QObject::connect(&job, &DownloadJob::failed, first);
    ticker.start();
    QTimer::singleShot(0, [&] { starting = false; });  // run_job's start() has returned
    trace.outcome = test::run_job(job);
    return trace;
}

// A large part (24 MB here, GBs in use) is hashed again on a worker thread when it resumes:
// start() returns before its bytes are read, the event loop keeps turning meanwhile, the first
// progress reports exactly the kept bytes, and the rest downloads and verifies.
TEST_F(DownloadJobTest, ALargePartIsHashedOffTheCallingThreadWhileTheEventLoopRuns) {
    constexpr qint64 kSize = 24 << 20;
    constexpr qint64 kKept = kSize - 4096;
    QByteArray bytes(kSize, Qt::Uninitialized);
    char* data = bytes.data();
    for (qint64 at = 0; at < kSize; ++at) data[at] = static_cast<char>((at * 2654435761u) >> 13);
    const std::vector<test::HubTestFile> files{test::hub_file("large.gguf", bytes)};
    test::HubTestServer server({{kRepository, files}});
    HubClient hub(HubSettings{QUrl(QString::fromStdString(server.url())), {}});
    const HubFile file = listed_of(files.front());
    DownloadJob download(hub, kRepository, file, folder());
    leave_part(download, file, bytes.left(kKept));

    const StartTrace trace = trace_start(download);
    ASSERT_TRUE(trace.outcome.ended);
    ASSERT_FALSE(trace.outcome.error) << trace.outcome.error->text.toStdString();
    EXPECT_FALSE(trace.signalled_inside_start);
    EXPECT_GT(trace.ticks_before_first_signal, 0);
    ASSERT_FALSE(trace.outcome.progress.empty());
    EXPECT_EQ(trace.outcome.progress.front().received, kKept);
    EXPECT_EQ(written(trace.outcome.path), bytes);
}

// A file already under the target name that is what the Hub lists counts as downloaded, after
// its checksum is read on a worker thread; nothing is asked of the Hub.
TEST_F(DownloadJobTest, AnExistingMatchingFileIsCheckedOffTheCallingThreadAndKept) {
    DownloadJob download(m_hub, kRepository, listed(), folder());
    {
        QFile out(download.final_path());
        ASSERT_TRUE(out.open(QIODevice::WriteOnly));
        out.write(served().bytes);
    }
    const StartTrace trace = trace_start(download);
    ASSERT_TRUE(trace.outcome.ended);
    ASSERT_FALSE(trace.outcome.error) << trace.outcome.error->text.toStdString();
    EXPECT_FALSE(trace.signalled_inside_start);
    EXPECT_EQ(trace.outcome.path, download.final_path());
    EXPECT_TRUE(file_ranges().empty());
}

// A user's own file under the target name (same size, other bytes; or another size) is not
// taken for the model: the job fails naming it and the file is left exactly as it was.
TEST_F(DownloadJobTest, AnExistingFileThatDiffersIsNamedAndLeftUntouched) {
    QByteArray other = served().bytes;
    other[1000] = static_cast<char>(other[1000] ^ 0x5a);
    for (const QByteArray& mine : {other, served().bytes.left(5000)}) {
        DownloadJob download(m_hub, kRepository, listed(), folder());
        {
            QFile out(download.final_path());
            ASSERT_TRUE(out.open(QIODevice::WriteOnly | QIODevice::Truncate));
            out.write(mine);
        }
        const auto outcome = test::run_job(download);
        ASSERT_TRUE(outcome.ended);
        ASSERT_TRUE(outcome.error);
        EXPECT_EQ(outcome.error->kind, HubErrorKind::Integrity);
        EXPECT_TRUE(outcome.error->text.contains(download.final_path()))
            << outcome.error->text.toStdString();
        EXPECT_TRUE(outcome.error->text.contains("left as it is"));
        EXPECT_NE(download.state(), DownloadState::Finished);
        EXPECT_EQ(written(download.final_path()), mine);
        EXPECT_FALSE(QFileInfo::exists(download.part_path()));
    }
    EXPECT_TRUE(file_ranges().empty());
}

}  // namespace
}  // namespace hearth::downloads
