#include "tests/support/download_waits.h"

namespace hearth::test {

JobOutcome run_job(downloads::DownloadJob& job,
                   const std::function<void(const downloads::DownloadProgress&)>& on_progress) {
    JobOutcome outcome;
    QEventLoop loop;
    QTimer::singleShot(kDownloadWaitMs, &loop, &QEventLoop::quit);
    const auto progressed = QObject::connect(&job, &downloads::DownloadJob::progressed,
                                             [&](const downloads::DownloadProgress& step) {
                                                 outcome.progress.push_back(step);
                                                 if (on_progress) on_progress(step);
                                             });
    const auto finished =
        QObject::connect(&job, &downloads::DownloadJob::finished, [&](const QString& path) {
            outcome.ended = true;
            outcome.path = path;
            loop.quit();
        });
    const auto failed = QObject::connect(&job, &downloads::DownloadJob::failed,
                                         [&](const downloads::HubError& error) {
                                             outcome.ended = true;
                                             outcome.error = error;
                                             loop.quit();
                                         });
    const auto paused = QObject::connect(&job, &downloads::DownloadJob::paused, [&] {
        outcome.ended = true;
        loop.quit();
    });
    job.start();
    if (!outcome.ended) loop.exec();
    for (const auto& connection : {progressed, finished, failed, paused}) {
        QObject::disconnect(connection);
    }
    return outcome;
}

}  // namespace hearth::test
