// hearth-cli --download against the loopback hub: the file arrives verified, is a model the CLI
// runs, and failures (a gated repository, a full disk) end with the cause.
#include <gtest/gtest.h>

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QProcess>
#include <QRegularExpression>

#include "app/core/downloads/disk_space.h"
#include "engine/format/gguf_file.h"
#include "engine/model/model_info.h"
#include "tests/support/cli_process.h"
#include "tests/support/hub_test_server.h"
#include "tests/support/shared_data.h"
#include "tests/support/split_model.h"
#include "tests/support/temp_files.h"

namespace hearth {
namespace {

constexpr const char* kToken = "hf_clitoken";
constexpr const char* kFile = "stories260K.gguf";

QByteArray file_bytes(const QString& path) {
    QFile in(path);
    return in.open(QIODevice::ReadOnly) ? in.readAll() : QByteArray();
}

// A repository holding a real model split into two parts (written into `folder`), and a README.
test::HubTestRepository split_repository(const std::filesystem::path& folder) {
    const auto parts = test::write_split_model(
        *GgufFile::open(test::model_path("synth-llama-256-Q8_0.gguf")), folder / "big-Q8_0", 2);
    // Listed second part first: the download still goes in order.
    return {"hearth-test/split",
            {test::hub_file(parts[1].filename().string(), parts[1]),
             test::hub_file(parts[0].filename().string(), parts[0]),
             test::hub_file("README.md", QByteArray("# big"))}};
}

class CliDownloadTest : public ::testing::Test {
protected:
    CliDownloadTest()
        : m_server({{"hearth-test/stories", {test::hub_file(kFile, test::model_path(kFile))}},
                    {"hearth-test/gated", {test::hub_file(kFile, test::model_path(kFile))}, true},
                    {"hearth-test/two",
                     {test::hub_file("synth-llama-256-Q4_0.gguf",
                                     test::model_path("synth-llama-256-Q4_0.gguf")),
                      test::hub_file("synth-llama-256-Q8_0.gguf",
                                     test::model_path("synth-llama-256-Q8_0.gguf"))}},
                    split_repository(m_split_parts.path())},
                   kToken) {
        qputenv("HF_ENDPOINT", QByteArray::fromStdString(m_server.url()));
        qunsetenv("HF_TOKEN");
    }
    ~CliDownloadTest() override { qunsetenv("HF_ENDPOINT"); }

    QString folder() const { return QString::fromStdString(m_folder.path().string()); }

    test::TempDirectory m_split_parts;  // before m_server, which serves what it holds
    test::HubTestServer m_server;
    test::TempDirectory m_folder;
};

// From nothing to a model the CLI runs: the estimate first, then the verified file.
TEST_F(CliDownloadTest, DownloadsAVerifiedModelThatTheCliThenRuns) {
    const auto result =
        test::run_cli({"--download", "hearth-test/stories", "--dir", folder(), "--ctx", "256"});
    ASSERT_EQ(result.exit_code, 0) << result.err;
    const QString path = QDir(folder()).filePath(kFile);
    EXPECT_EQ(result.out, path.toStdString() + "\n");
    EXPECT_NE(result.err.find("memory: "), std::string::npos) << result.err;
    EXPECT_NE(result.err.find("at a context of 256 tokens"), std::string::npos) << result.err;
    EXPECT_NE(result.err.find(": fits"), std::string::npos) << result.err;
    EXPECT_EQ(file_bytes(path),
              file_bytes(QString::fromStdString(test::model_path(kFile).string())));
    EXPECT_EQ(QDir(folder()).entryList(QDir::Files), QStringList{kFile});

    const auto story = test::run_cli(
        {"-m", path, "-p", "Once upon a time", "-n", "8", "--temp", "0", "--backend", "cpu"});
    EXPECT_EQ(story.exit_code, 0) << story.err;
    EXPECT_GT(story.out.size(), std::string("Once upon a time").size());
}

TEST_F(CliDownloadTest, AGatedModelNeedsHfToken) {
    const auto refused = test::run_cli({"--download", "hearth-test/gated", "--dir", folder()});
    EXPECT_EQ(refused.exit_code, 1);
    EXPECT_NE(refused.err.find("needs an access token"), std::string::npos) << refused.err;
    EXPECT_NE(refused.err.find("HTTP 401"), std::string::npos) << refused.err;
    qputenv("HF_TOKEN", kToken);
    const auto allowed = test::run_cli({"--download", "hearth-test/gated", "--dir", folder()});
    qunsetenv("HF_TOKEN");
    EXPECT_EQ(allowed.exit_code, 0) << allowed.err;
}

TEST_F(CliDownloadTest, SeveralModelsAskForAFile) {
    const auto result = test::run_cli({"--download", "hearth-test/two", "--dir", folder()});
    EXPECT_EQ(result.exit_code, 2);
    EXPECT_NE(result.err.find("synth-llama-256-Q4_0.gguf"), std::string::npos) << result.err;
    EXPECT_NE(result.err.find("synth-llama-256-Q8_0.gguf"), std::string::npos) << result.err;
    EXPECT_TRUE(QDir(folder()).entryList(QDir::Files).isEmpty());
    const auto chosen = test::run_cli(
        {"--download", "hearth-test/two:synth-llama-256-Q8_0.gguf", "--dir", folder()});
    EXPECT_EQ(chosen.exit_code, 0) << chosen.err;
    EXPECT_EQ(QDir(folder()).entryList(QDir::Files), QStringList{"synth-llama-256-Q8_0.gguf"});
}

// A model split into parts is one choice: its memory estimate, from every part's header, is what
// the downloaded model needs, and every part is downloaded, in order.
TEST_F(CliDownloadTest, ASplitModelIsEstimatedAndDownloadsEveryPart) {
    const auto result =
        test::run_cli({"--download", "hearth-test/split", "--dir", folder(), "--ctx", "256"});
    ASSERT_EQ(result.exit_code, 0) << result.err;
    const QDir dir(folder());
    const QString first = dir.filePath("big-Q8_0-00001-of-00002.gguf");
    const QString second = dir.filePath("big-Q8_0-00002-of-00002.gguf");
    EXPECT_EQ(result.out, first.toStdString() + "\n" + second.toStdString() + "\n");
    const QString source(QString::fromStdString(m_split_parts.path().string()));
    EXPECT_EQ(file_bytes(first), file_bytes(QDir(source).filePath("big-Q8_0-00001-of-00002.gguf")));
    EXPECT_EQ(file_bytes(second),
              file_bytes(QDir(source).filePath("big-Q8_0-00002-of-00002.gguf")));

    const auto downloaded = read_model_info(first.toStdString());
    const QString needed = downloads::size_text(static_cast<qint64>(downloaded.memory_bytes(256)));
    EXPECT_NE(result.err.find(("memory: " + needed + " at a context of 256 tokens").toStdString()),
              std::string::npos)
        << result.err;
    EXPECT_NE(result.err.find("of the 2 parts' headers)"), std::string::npos) << result.err;
}

// A disk that fills during the download (a 1200 KiB tmpfs in a mount namespace of its own,
// filled by another writer once the download has begun): the CLI fails naming the full disk
// and keeps the part for a resume.
TEST_F(CliDownloadTest, ADiskThatFillsMidDownloadIsNamed) {
    if (QProcess::execute("unshare", {"-rm", "true"}) != 0) {
        GTEST_SKIP() << "unshare -rm is not permitted here: no private tmpfs to fill";
    }
    const auto marker = m_folder.path() / "filled";
    const auto listing = m_folder.path() / "listing";
    const auto disk = m_folder.path() / "disk";
    std::filesystem::create_directory(disk);
    m_server.hold_next_file_after(256 * 1024, marker);
    const QString script = QStringLiteral(
        "mount -t tmpfs -o size=1200k tmpfs \"$1\" || exit 90\n"
        "\"$2\" --download hearth-test/stories --dir \"$1\" &\n"
        "pid=$!\n"
        "while [ ! -s \"$1/stories260K.gguf.part\" ] && kill -0 $pid 2>/dev/null; do\n"
        "  sleep 0.01\n"
        "done\n"
        "dd if=/dev/zero of=\"$1/filler\" bs=4k 2>/dev/null\n"
        "touch \"$3\"\n"
        "wait $pid; status=$?\n"
        "ls \"$1\" > \"$4\"\n"
        "exit $status\n");
    QProcess shell;
    auto environment = QProcessEnvironment::systemEnvironment();
    environment.insert("ASAN_OPTIONS", "detect_leaks=0");
    shell.setProcessEnvironment(environment);
    shell.start("unshare",
                {"-rm", "sh", "-c", script, "sh", QString::fromStdString(disk.string()),
                 QStringLiteral(HEARTH_CLI_PATH), QString::fromStdString(marker.string()),
                 QString::fromStdString(listing.string())});
    ASSERT_TRUE(shell.waitForFinished(60000));
    const std::string err = shell.readAllStandardError().toStdString();
    ASSERT_NE(shell.exitCode(), 90) << "tmpfs could not be mounted: " << err;
    EXPECT_EQ(shell.exitCode(), 1) << err;
    EXPECT_NE(err.find("the disk may be full"), std::string::npos) << err;
    EXPECT_NE(err.find("No space left on device"), std::string::npos) << err;
    const QString files = QString::fromUtf8(file_bytes(QString::fromStdString(listing.string())));
    EXPECT_TRUE(files.contains("stories260K.gguf.part")) << files.toStdString();
    EXPECT_FALSE(files.contains(
        QRegularExpression("^stories260K.gguf$", QRegularExpression::MultilineOption)));
}

}  // namespace
}  // namespace hearth
