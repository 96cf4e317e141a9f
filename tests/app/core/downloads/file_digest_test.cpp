#include "app/core/downloads/file_digest.h"

#include <gtest/gtest.h>

#include <QCryptographicHash>
#include <QFile>

#include "tests/support/temp_files.h"

namespace hearth::downloads {
namespace {

QString written(const test::TempDirectory& folder, const QByteArray& bytes) {
    const QString path = QString::fromStdString((folder.path() / "file.bin").string());
    QFile out(path);
    EXPECT_TRUE(out.open(QIODevice::WriteOnly));
    out.write(bytes);
    return path;
}

// The sha256 is that of the bytes; the git oid is git's blob id ("blob SIZE\0" then the bytes),
// checked against the id git gives "hello\n".
TEST(FileDigest, HashesAFileAsTheHubListsIt) {
    const test::TempDirectory folder;
    const QByteArray hello("hello\n");
    const auto digest =
        digest_file(written(folder, hello), hello.size(), std::make_shared<std::atomic_bool>());
    ASSERT_TRUE(digest);
    EXPECT_EQ(digest->bytes, hello.size());
    EXPECT_EQ(digest->sha256(),
              QCryptographicHash::hash(hello, QCryptographicHash::Sha256).toHex());
    EXPECT_EQ(digest->git_oid(), "ce013625030ba8dba906f756967f9e9ca394464a");
    const HubFile lfs{"hello.txt", hello.size(), digest->sha256(), {}};
    EXPECT_TRUE(checksum_mismatch(*digest, lfs).isEmpty());
    const HubFile plain{"hello.txt", hello.size(), {}, digest->git_oid()};
    EXPECT_TRUE(checksum_mismatch(*digest, plain).isEmpty());
}

// A mismatch names the file and both checksums; a file listed without one is not taken as
// verified.
TEST(FileDigest, AMismatchOrAMissingChecksumIsSaid) {
    const test::TempDirectory folder;
    const auto digest =
        digest_file(written(folder, "abc"), 3, std::make_shared<std::atomic_bool>());
    ASSERT_TRUE(digest);
    const QString other(64, '0');
    const QString mismatch = checksum_mismatch(*digest, {"m.gguf", 3, other, {}});
    EXPECT_TRUE(mismatch.contains("m.gguf")) << mismatch.toStdString();
    EXPECT_TRUE(mismatch.contains(other));
    EXPECT_TRUE(mismatch.contains(digest->sha256()));
    EXPECT_TRUE(checksum_mismatch(*digest, {"m.gguf", 3, {}, {}}).contains("no checksum"));
}

// A stop already asked for reads nothing; a file that cannot be read gives no digest.
TEST(FileDigest, StopsWhenAskedAndSaysWhenTheFileCannotBeRead) {
    const test::TempDirectory folder;
    const auto stop = std::make_shared<std::atomic_bool>(true);
    const auto stopped = digest_file(written(folder, "abc"), 3, stop);
    ASSERT_TRUE(stopped);
    EXPECT_EQ(stopped->bytes, 0);
    const QString missing = QString::fromStdString((folder.path() / "missing").string());
    EXPECT_FALSE(digest_file(missing, 3, std::make_shared<std::atomic_bool>()));
}

}  // namespace
}  // namespace hearth::downloads
