#include "app/core/downloads/download_job.h"

#include <QDir>
#include <QFileInfo>
#include <QFutureWatcher>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkReply>
#include <QtConcurrent/QtConcurrentRun>

#include "app/core/downloads/disk_space.h"
#include "app/core/downloads/hub_error.h"

namespace hearth::downloads {
namespace {

// A connection that drops after delivering bytes is picked up again this many times in a row
// before the job gives up and keeps the part for a later resume.
constexpr int kMaxRetries = 3;
constexpr qint64 kProgressIntervalMs = 100;
constexpr qint64 kProgressSteps = 100;

QJsonObject state_of(const QString& repository, const HubFile& file) {
    return {{"repository", repository},
            {"path", file.path},
            {"size", file.size},
            {"sha256", file.sha256},
            {"oid", file.git_oid}};
}

bool write_state(const QString& path, const QJsonObject& state) {
    QFile out(path);
    return out.open(QIODevice::WriteOnly | QIODevice::Truncate) &&
           out.write(QJsonDocument(state).toJson()) > 0;
}

QJsonObject read_state(const QString& path) {
    QFile in(path);
    if (!in.open(QIODevice::ReadOnly)) return {};
    return QJsonDocument::fromJson(in.readAll()).object();
}

// Where Content-Range says the body starts: "bytes FIRST-LAST/TOTAL".
qint64 content_range_start(const QNetworkReply& reply) {
    const QByteArray range = reply.rawHeader("Content-Range");
    if (!range.startsWith("bytes ")) return -1;
    bool number = false;
    const qint64 first = range.mid(6).split('-').value(0).toLongLong(&number);
    return number ? first : -1;
}

}  // namespace

DownloadJob::DownloadJob(HubClient& hub, QString repository, HubFile file, QString folder,
                         QObject* parent)
    : QObject(parent),
      m_hub(hub),
      m_repository(std::move(repository)),
      m_file(std::move(file)),
      m_folder(std::move(folder)) {
    m_held_report.setSingleShot(true);
    connect(&m_held_report, &QTimer::timeout, this, [this] {
        if (m_state == DownloadState::Running && m_received != m_reported) report_progress(true);
    });
}

DownloadJob::~DownloadJob() {
    stop_digest();
    // The part and its state stay for a later resume; only the request goes.
    if (QNetworkReply* reply = m_reply) {
        reply->disconnect(this);
        reply->abort();
        reply->deleteLater();
    }
}

QString DownloadJob::final_path() const {
    return QDir(m_folder).filePath(m_file.path.section('/', -1));
}

void DownloadJob::start() {
    if (m_state == DownloadState::Running) return;
    m_state = DownloadState::Running;
    m_retries = 0;
    const QFileInfo existing(final_path());
    if (existing.exists()) {
        if (existing.size() != m_file.size) {
            fail({HubErrorKind::Integrity, existing_mismatch(QStringLiteral("its size is %1, the "
                                                                            "Hub's %2")
                                                                 .arg(existing.size())
                                                                 .arg(m_file.size))});
            return;
        }
        digest_in_background(final_path(), &DownloadJob::check_existing);
        return;
    }
    if (!QDir().mkpath(m_folder)) {
        fail({HubErrorKind::Disk,
              QStringLiteral("Could not create the folder %1 for the download.").arg(m_folder)});
        return;
    }
    resume_from_part();
}

// Hashes `path` on a worker thread and calls `done` here with the result, unless this job was
// paused, cancelled, restarted or destroyed meanwhile.
void DownloadJob::digest_in_background(const QString& path, DigestDone done) {
    stop_digest();
    auto stop = std::make_shared<std::atomic_bool>(false);
    m_stop_digest = stop;
    auto* watcher = new QFutureWatcher<std::shared_ptr<FileDigest>>(this);
    connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, stop, done] {
        watcher->deleteLater();
        if (stop->load() || m_state != DownloadState::Running) return;
        (this->*done)(watcher->result());
    });
    watcher->setFuture(QtConcurrent::run(digest_file, path, m_file.size, stop));
}

void DownloadJob::stop_digest() {
    if (m_stop_digest) m_stop_digest->store(true);
    m_stop_digest.reset();
}

// A file already under the target name may be the user's own: it counts as this download only
// when it is byte for byte what the Hub lists, and is never deleted or overwritten.
void DownloadJob::check_existing(std::shared_ptr<FileDigest> digest) {
    if (!digest) {
        fail({HubErrorKind::Disk, existing_mismatch(QStringLiteral("it could not be read"))});
        return;
    }
    const QString mismatch = checksum_mismatch(*digest, m_file);
    if (!mismatch.isEmpty()) {
        fail({HubErrorKind::Integrity, existing_mismatch(mismatch)});
        return;
    }
    m_received = m_file.size;
    report_progress(true);
    m_state = DownloadState::Finished;
    emit finished(final_path());
}

QString DownloadJob::existing_mismatch(const QString& why) const {
    return QStringLiteral(
               "%1 is already there but is not %2 of %3 (%4). It was left as it is "
               "and nothing was downloaded: move or rename it, then download again.")
        .arg(QDir::toNativeSeparators(final_path()), m_file.path, m_repository, why);
}

// Keeps the part only when its state file names this very file; its bytes so far are hashed
// again (on a worker thread: a part can be GBs), so that the checks at the end cover the whole
// file.
void DownloadJob::resume_from_part() {
    restart_hashes();
    const QFileInfo part(part_path());
    const bool same = read_state(state_path()) == state_of(m_repository, m_file);
    if (!same || !part.exists() || part.size() > m_file.size) {
        remove_part();
        continue_start();
        return;
    }
    digest_in_background(part_path(), &DownloadJob::on_part_digested);
}

void DownloadJob::on_part_digested(std::shared_ptr<FileDigest> digest) {
    if (!digest) {
        remove_part();  // unreadable: start again
    } else {
        m_digest = std::move(digest);
        m_received = m_digest->bytes;
        report_progress(true);
    }
    continue_start();
}

void DownloadJob::continue_start() {
    if (auto error = check_disk_space(m_folder, m_file.size - m_received)) {
        fail(*error);
        return;
    }
    if (!write_state(state_path(), state_of(m_repository, m_file)) || !open_part()) {
        fail({HubErrorKind::Disk,
              QStringLiteral("Could not write %1 (%2).")
                  .arg(QDir::toNativeSeparators(part_path()), m_part.errorString())});
        return;
    }
    if (m_received == m_file.size) {
        verify_and_place();  // every byte arrived before a stop that came ahead of the check
        return;
    }
    request_from(m_received);
}

void DownloadJob::restart_hashes() {
    m_digest = std::make_shared<FileDigest>(m_file.size);
    m_received = 0;
}

bool DownloadJob::open_part() {
    m_part.close();
    m_part.setFileName(part_path());
    // Unbuffered: a full disk fails the write that hits it, not a later flush.
    return m_part.open(QIODevice::WriteOnly | QIODevice::Append | QIODevice::Unbuffered);
}

void DownloadJob::request_from(qint64 offset) {
    QNetworkRequest request = m_hub.request(m_hub.file_url(m_repository, m_file.path));
    if (offset > 0) request.setRawHeader("Range", "bytes=" + QByteArray::number(offset) + '-');
    m_attempt_start = offset;
    m_reported = offset;
    m_response_checked = false;
    m_attempt_clock.start();
    m_report_clock.start();
    m_reply = m_hub.network().get(request);
    connect(m_reply, &QNetworkReply::readyRead, this, &DownloadJob::on_ready_read);
    connect(m_reply, &QNetworkReply::finished, this,
            [this, reply = m_reply.data()] { on_finished(reply); });
}

// Whether the body that starts arriving continues the part: a 206 from where it ends, or a 200
// (the whole file, from a server that ignores Range) for which the part starts again.
bool DownloadJob::accept_response() {
    m_response_checked = true;
    const int status = m_reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    if (status == 200 && m_received > 0) {
        m_part.resize(0);
        restart_hashes();
        m_attempt_start = 0;
        return true;
    }
    if (status == 206 && content_range_start(*m_reply) != m_received) {
        fail({HubErrorKind::Protocol,
              QStringLiteral("The Hub answered a request for %1 from byte %2 with other bytes.")
                  .arg(m_file.path)
                  .arg(m_received),
              status});
        return false;
    }
    return status == 200 || status == 206;
}

void DownloadJob::on_ready_read() {
    if (m_state != DownloadState::Running) return;
    if (!m_response_checked && !accept_response()) return;
    const int status = m_reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    if (status != 200 && status != 206) return;  // an error page: on_finished names it
    const QByteArray bytes = m_reply->readAll();
    if (m_received + bytes.size() > m_file.size) {
        remove_part();
        fail({HubErrorKind::Integrity,
              QStringLiteral("The Hub sent more than the %1 bytes it lists for %2; the download "
                             "was deleted.")
                  .arg(m_file.size)
                  .arg(m_file.path)});
        return;
    }
    if (m_part.write(bytes) != bytes.size()) {
        fail({HubErrorKind::Disk,
              QStringLiteral("Writing %1 failed after %2 (%3): the disk may be full. Free some "
                             "space and resume; the %2 already downloaded are kept.")
                  .arg(QDir::toNativeSeparators(part_path()), size_text(m_received),
                       m_part.errorString())});
        return;
    }
    m_digest->add(bytes);
    m_received += bytes.size();
    report_progress(false);
}

void DownloadJob::on_finished(QNetworkReply* reply) {
    reply->deleteLater();
    if (reply != m_reply) return;  // one a pause or retry has replaced
    if (m_state == DownloadState::Running && reply->bytesAvailable() > 0) on_ready_read();
    m_reply = nullptr;
    if (m_state != DownloadState::Running) return;  // paused, cancelled or failed meanwhile
    const QString what = QStringLiteral("the file %1 of %2").arg(m_file.path, m_repository);
    if (auto error = reply_error(*reply, what, m_hub.token_sent())) {
        if (!retry_after_drop(*error)) fail(*error);
        return;
    }
    if (m_received < m_file.size) {
        const HubError cut{HubErrorKind::Offline,
                           QStringLiteral("The connection ended after %1 of %2 for %3: try again "
                                          "to resume.")
                               .arg(size_text(m_received), size_text(m_file.size), m_file.path)};
        if (!retry_after_drop(cut)) fail(cut);
        return;
    }
    verify_and_place();
}

// A connection that dropped after making progress is picked up where it stopped.
bool DownloadJob::retry_after_drop(const HubError& error) {
    const bool progressed = m_received > m_attempt_start;
    if (error.kind != HubErrorKind::Offline || !progressed || m_retries >= kMaxRetries) {
        return false;
    }
    ++m_retries;
    request_from(m_received);
    return true;
}

void DownloadJob::verify_and_place() {
    m_part.close();
    const QString mismatch = checksum_mismatch(*m_digest, m_file);
    if (!mismatch.isEmpty()) {
        remove_part();
        fail({HubErrorKind::Integrity,
              QStringLiteral("The download of %1 failed its check: %2. It was damaged on the way "
                             "and has been deleted; download it again.")
                  .arg(m_file.path, mismatch)});
        return;
    }
    if (!QFile::rename(part_path(), final_path())) {
        fail({HubErrorKind::Disk, QStringLiteral("Could not rename %1 to %2.")
                                      .arg(QDir::toNativeSeparators(part_path()),
                                           QDir::toNativeSeparators(final_path()))});
        return;
    }
    QFile::remove(state_path());
    report_progress(true);
    m_state = DownloadState::Finished;
    emit finished(final_path());
}

void DownloadJob::pause() {
    if (m_state != DownloadState::Running) return;
    m_state = DownloadState::Paused;
    stop_digest();
    stop_request();
    m_part.close();
    emit paused();
}

void DownloadJob::cancel() {
    const bool was_active = m_state == DownloadState::Running || m_state == DownloadState::Paused;
    m_state = DownloadState::Cancelled;
    stop_digest();
    stop_request();
    m_part.close();
    remove_part();
    if (was_active) {
        emit failed({HubErrorKind::Cancelled,
                     QStringLiteral("The download of %1 was cancelled.").arg(m_file.path)});
    }
}

void DownloadJob::fail(HubError error) {
    m_state = DownloadState::Failed;
    stop_digest();
    stop_request();
    m_part.close();
    emit failed(error);
}

void DownloadJob::stop_request() {
    if (QNetworkReply* reply = m_reply) {
        m_reply = nullptr;
        reply->abort();  // its finished() is ignored and deletes it
    }
}

void DownloadJob::remove_part() {
    m_part.close();
    QFile::remove(part_path());
    QFile::remove(state_path());
}

// At most every 100 ms, or after each hundredth of the file, whichever comes first; a report
// held back is made when the 100 ms are up if nothing else has made it by then.
void DownloadJob::report_progress(bool force) {
    const bool step = m_received - m_reported >= m_file.size / kProgressSteps;
    const qint64 since = m_report_clock.elapsed();
    if (!force && !step && since < kProgressIntervalMs) {
        if (!m_held_report.isActive())
            m_held_report.start(static_cast<int>(kProgressIntervalMs - since));
        return;
    }
    m_held_report.stop();
    m_report_clock.restart();
    m_reported = m_received;
    DownloadProgress progress{m_received, m_file.size};
    const double seconds = m_attempt_clock.nsecsElapsed() / 1e9;
    if (seconds > 0.0) {
        progress.bytes_per_second = (m_received - m_attempt_start) / seconds;
    }
    if (progress.bytes_per_second > 0.0) {
        progress.seconds_left = (m_file.size - m_received) / progress.bytes_per_second;
    }
    emit progressed(progress);
}

}  // namespace hearth::downloads
