// Running the event loop until a Hub request or a download ends, for tests of the downloads
// library (each wait is bounded, so a hang fails the test instead of stalling the suite).
#pragma once

#include <QEventLoop>
#include <QTimer>

#include <functional>
#include <optional>
#include <vector>

#include "app/core/downloads/download_job.h"
#include "app/core/downloads/hub_client.h"

namespace hearth::test {

inline constexpr int kDownloadWaitMs = 20000;

// Calls `start` with a callback and returns what it was called with (nullopt on a hang).
template <typename T>
std::optional<downloads::HubResult<T>> wait_for(
    const std::function<void(downloads::HubClient::Done<T>)>& start) {
    std::optional<downloads::HubResult<T>> result;
    QEventLoop loop;
    QTimer::singleShot(kDownloadWaitMs, &loop, &QEventLoop::quit);
    start([&](downloads::HubResult<T> answer) {
        result = std::move(answer);
        loop.quit();
    });
    if (!result) loop.exec();
    return result;
}

// What a download job ended with.
struct JobOutcome {
    bool ended = false;  // finished or failed within the bound
    QString path;        // finished: where the file is
    std::optional<downloads::HubError> error;
    std::vector<downloads::DownloadProgress> progress;
};

// Starts (or resumes) `job` and runs until it finishes or fails; `on_progress` may pause it.
JobOutcome run_job(downloads::DownloadJob& job,
                   const std::function<void(const downloads::DownloadProgress&)>& on_progress = {});

}  // namespace hearth::test
