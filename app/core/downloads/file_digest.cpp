#include "app/core/downloads/file_digest.h"

#include <QFile>

namespace hearth::downloads {
namespace {

constexpr qint64 kHashChunk = 4 << 20;

}  // namespace

FileDigest::FileDigest(qint64 file_size) {
    git_sha1.addData(QStringLiteral("blob %1").arg(file_size).toLatin1().append('\0'));
}

void FileDigest::add(QByteArrayView bytes) {
    sha256_hash.addData(bytes);
    git_sha1.addData(bytes);
    this->bytes += bytes.size();
}

QString FileDigest::sha256() const {
    return QString::fromLatin1(sha256_hash.result().toHex());
}

QString FileDigest::git_oid() const {
    return QString::fromLatin1(git_sha1.result().toHex());
}

std::shared_ptr<FileDigest> digest_file(const QString& path, qint64 file_size,
                                        std::shared_ptr<const std::atomic_bool> stop) {
    QFile in(path);
    if (!in.open(QIODevice::ReadOnly)) return nullptr;
    auto digest = std::make_shared<FileDigest>(file_size);
    while (!in.atEnd() && !stop->load()) {
        const QByteArray chunk = in.read(kHashChunk);
        if (chunk.isEmpty()) break;
        digest->add(chunk);
    }
    return digest;
}

QString checksum_mismatch(const FileDigest& digest, const HubFile& file) {
    const bool lfs = !file.sha256.isEmpty();
    const QString& expected = lfs ? file.sha256 : file.git_oid;
    if (expected.isEmpty()) {
        return QStringLiteral("the Hub lists no checksum for %1, so it could not be verified")
            .arg(file.path);
    }
    const QString actual = lfs ? digest.sha256() : digest.git_oid();
    if (actual == expected) return {};
    return QStringLiteral("%1 does not match the Hub's checksum (%2 %3, the file's %4)")
        .arg(file.path, lfs ? QStringLiteral("sha256") : QStringLiteral("git oid"), expected,
             actual);
}

}  // namespace hearth::downloads
