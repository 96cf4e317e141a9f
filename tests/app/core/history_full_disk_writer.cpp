// A child process for the disk-full test: stores a finished exchange, then may not grow any
// file by more than a few kilobytes (RLIMIT_FSIZE, so the write fails as on a full disk) while
// an answer streams into the history. Prints the store's problem and how much of the answer it
// holds in memory, then exits normally: running out of space must not end the app.
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include <QCoreApplication>

#include <algorithm>
#include <cstdio>

#include "app/core/history_store.h"
#include "app/core/streaming_saver.h"
#include "tests/app/core/streaming_exchange.h"

namespace {

long long file_size(const QString& path) {
    struct stat info {};
    return ::stat(path.toLocal8Bit().constData(), &info) == 0 ? info.st_size : 0;
}

// The files may grow by `room` bytes from now on; past that a write fails with EFBIG instead of
// the process being killed by SIGXFSZ.
void limit_file_growth(const QString& database, long long room) {
    ::signal(SIGXFSZ, SIG_IGN);
    const long long largest =
        std::max({file_size(database), file_size(database + "-wal"), file_size(database + "-shm")});
    const rlimit limit{static_cast<rlim_t>(largest + room), static_cast<rlim_t>(largest + room)};
    ::setrlimit(RLIMIT_FSIZE, &limit);
}

}  // namespace

int main(int argc, char** argv) {
    QCoreApplication application(argc, argv);
    if (argc < 2) return 2;
    const QString path = QString::fromLocal8Bit(argv[1]);
    hearth::core::HistoryStore store(path);
    auto [conversation, id, answer] =
        hearth::core::test::begin_streaming_exchange(store, "full disk");

    limit_file_growth(path, 64 * 1024);
    hearth::core::StreamingSaver saver(&store, id);
    auto* message = conversation.find(answer);
    int written = 0;
    for (int piece = 0; piece < 400 && store.available(); ++piece) {
        message->text += QStringLiteral("word%1 ").arg(piece).repeated(40);
        saver.finish(*message);  // written now, as at the end of each answer
        written += store.available() ? 1 : 0;
    }
    for (int piece = 0; piece < 10; ++piece) {  // the answer goes on after the failure
        message->text += QStringLiteral("after%1 ").arg(piece);
        saver.update(*message);
    }
    std::printf("pieces written: %d\n", written);
    std::printf("problem %s\n", store.problem().toUtf8().constData());
    std::printf("in memory: %s\n", message->text.toUtf8().constData());
    return 0;
}
