#include "app/core/downloads/disk_space.h"

#include <QDir>
#include <QFileInfo>
#include <QLocale>
#include <QStorageInfo>

namespace hearth::downloads {
namespace {

// The folder itself may not exist yet: its nearest existing ancestor is on the same disk.
QString existing_folder(const QString& folder) {
    QFileInfo info(QDir::cleanPath(QDir(folder).absolutePath()));
    while (!info.exists() && !info.isRoot()) info = QFileInfo(info.absolutePath());
    return info.absoluteFilePath();
}

}  // namespace

QString size_text(qint64 bytes) {
    return QLocale::c().formattedDataSize(bytes, 1, QLocale::DataSizeIecFormat);
}

std::optional<HubError> check_disk_space(const QString& folder, qint64 bytes) {
    const QStorageInfo storage(existing_folder(folder));
    if (!storage.isValid()) return std::nullopt;  // nothing to measure: writing will tell
    const qint64 free = storage.bytesAvailable();
    if (free >= bytes) return std::nullopt;
    return HubError{HubErrorKind::Disk,
                    QStringLiteral("Not enough disk space in %1: the download needs %2 and only "
                                   "%3 is free. Free some space or choose another folder.")
                        .arg(QDir::toNativeSeparators(folder), size_text(bytes), size_text(free))};
}

}  // namespace hearth::downloads
