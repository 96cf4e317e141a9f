// The checksums the Hub lists for a file (sha256 for LFS files, the git blob id for the others),
// fed a piece at a time so that a resumed download continues the hashes of its part.
#pragma once

#include <QByteArrayView>
#include <QCryptographicHash>
#include <QString>

#include <atomic>
#include <memory>

#include "app/core/downloads/hub_types.h"

namespace hearth::downloads {

struct FileDigest {
    // A git blob id hashes a header with the whole file's size before the bytes.
    explicit FileDigest(qint64 file_size);
    void add(QByteArrayView bytes);
    QString sha256() const;
    QString git_oid() const;

    QCryptographicHash sha256_hash{QCryptographicHash::Sha256};
    QCryptographicHash git_sha1{QCryptographicHash::Sha1};
    qint64 bytes = 0;  // how many were added
};

// Hashes every byte of the file at `path` as the start of a file of `file_size` bytes. Reading
// a part of several GB takes seconds, so callers run this on a worker thread; it returns early
// (with the bytes hashed so far) once `stop` is set, and with none when the file cannot be read.
std::shared_ptr<FileDigest> digest_file(const QString& path, qint64 file_size,
                                        std::shared_ptr<const std::atomic_bool> stop);

// Why `digest` is not that of `file` as the Hub lists it, in words ("NAME does not match the
// Hub's checksum (…)"); empty when it is.
QString checksum_mismatch(const FileDigest& digest, const HubFile& file);

}  // namespace hearth::downloads
