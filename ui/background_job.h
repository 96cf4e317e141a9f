// Work that may wait (the keyring, a remote server) run on Qt's thread pool, its result handed
// back on the GUI thread: the window never blocks on it. The work gets only what it captured by
// value; if `owner` is gone when it ends (a dialog closed meanwhile), the result is dropped.
#pragma once

#include <QFutureWatcher>
#include <QObject>
#include <QtConcurrent/QtConcurrentRun>

#include <type_traits>
#include <utility>

namespace hearth::ui {

template <typename Work, typename Done>
void run_in_background(QObject* owner, Work work, Done done) {
    using Result = std::invoke_result_t<Work>;
    // Owned by `owner`: closing it drops the watcher and, with it, the result.
    auto* watcher = new QFutureWatcher<Result>(owner);
    QObject::connect(watcher, &QFutureWatcher<Result>::finished, owner,
                     [watcher, done = std::move(done)] {
                         watcher->deleteLater();
                         done(watcher->result());
                     });
    watcher->setFuture(QtConcurrent::run(std::move(work)));
}

}  // namespace hearth::ui
