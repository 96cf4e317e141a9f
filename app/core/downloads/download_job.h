// One file downloaded from the Hub into a folder: written as NAME.part beside a small state file
// (NAME.part.json) so that it resumes with an HTTP Range request after a pause, a dropped
// connection or a restart; its sha256 checked against the LFS object id the Hub lists before it
// is renamed to NAME. A partial or unverified file never has the name the model catalog lists.
#pragma once

#include <QElapsedTimer>
#include <QFile>
#include <QObject>
#include <QPointer>
#include <QTimer>

#include <atomic>
#include <memory>
#include <optional>

#include "app/core/downloads/file_digest.h"
#include "app/core/downloads/hub_client.h"

class QNetworkReply;

namespace hearth::downloads {

// Raw figures; the interface formats them.
struct DownloadProgress {
    qint64 received = 0;  // bytes of the file on disk, including those of earlier attempts
    qint64 total = 0;
    double bytes_per_second = 0.0;  // over this attempt
    std::optional<double> seconds_left;
};

enum class DownloadState { Idle, Running, Paused, Finished, Failed, Cancelled };

class DownloadJob final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(DownloadJob)

public:
    DownloadJob(HubClient& hub, QString repository, HubFile file, QString folder,
                QObject* parent = nullptr);
    ~DownloadJob() override;

    // Starts, or resumes from NAME.part when its state file describes this same file. Checks
    // the disk space still needed first. A file already at NAME finishes once its size and
    // checksum match the Hub's; one that does not is left untouched and the job fails naming
    // it. Reading a part or a file already there for its checksums happens on a worker thread
    // (a part can be GBs): start() returns before it, in state Running, and the signals that
    // follow come on this thread; progressed() reports the bytes kept once they are checked.
    void start();
    // Stops and keeps NAME.part and its state, for start() to resume.
    void pause();
    // Stops and deletes NAME.part and its state.
    void cancel();

    DownloadState state() const { return m_state; }
    QString final_path() const;
    QString part_path() const { return final_path() + QStringLiteral(".part"); }
    QString state_path() const { return part_path() + QStringLiteral(".json"); }
    const HubFile& file() const { return m_file; }

signals:
    void progressed(hearth::downloads::DownloadProgress progress);
    void finished(const QString& path);
    void failed(const hearth::downloads::HubError& error);
    void paused();

private:
    using DigestDone = void (DownloadJob::*)(std::shared_ptr<FileDigest>);
    void digest_in_background(const QString& path, DigestDone done);
    void check_existing(std::shared_ptr<FileDigest> digest);
    QString existing_mismatch(const QString& why) const;
    void resume_from_part();
    void on_part_digested(std::shared_ptr<FileDigest> digest);
    void continue_start();
    void restart_hashes();
    void stop_digest();
    bool open_part();
    void request_from(qint64 offset);
    bool accept_response();
    void on_ready_read();
    void on_finished(QNetworkReply* reply);
    void stop_request();
    bool retry_after_drop(const HubError& error);
    void verify_and_place();
    void fail(HubError error);
    void remove_part();
    void report_progress(bool force);

    HubClient& m_hub;
    QString m_repository;
    HubFile m_file;
    QString m_folder;
    DownloadState m_state = DownloadState::Idle;
    QFile m_part;
    std::shared_ptr<FileDigest> m_digest;
    // Set to stop the worker hashing for this job; a new one for each start().
    std::shared_ptr<std::atomic_bool> m_stop_digest;
    QPointer<QNetworkReply> m_reply;
    qint64 m_received = 0;
    qint64 m_attempt_start = 0;  // m_received when this request started
    qint64 m_reported = 0;       // m_received at the last progress report
    bool m_response_checked = false;
    int m_retries = 0;
    QElapsedTimer m_attempt_clock;
    QElapsedTimer m_report_clock;
    // Fires a report held back by the 100 ms limit when no more bytes come to trigger one, so a
    // stalled download shows what it has, not up to a hundredth of the file less.
    QTimer m_held_report;
};

}  // namespace hearth::downloads
