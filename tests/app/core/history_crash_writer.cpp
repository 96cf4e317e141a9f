// A child process for the crash test: stores a finished exchange, then streams an answer into
// the history the way the window does (StreamingSaver), printing how much text exists after
// each piece, until it is killed.
#include <QCoreApplication>
#include <QDateTime>
#include <QThread>

#include <cstdio>

#include "app/core/history_store.h"
#include "app/core/streaming_saver.h"
#include "tests/app/core/streaming_exchange.h"

int main(int argc, char** argv) {
    QCoreApplication application(argc, argv);
    if (argc < 2) return 2;
    hearth::core::HistoryStore store(QString::fromLocal8Bit(argv[1]));
    auto [conversation, id, answer] =
        hearth::core::test::begin_streaming_exchange(store, "crash test");
    hearth::core::StreamingSaver saver(&store, id);
    std::printf("ready %d\n", id);
    std::fflush(stdout);
    for (int piece = 0;; ++piece) {
        auto* message = conversation.find(answer);
        message->text += QStringLiteral("word%1 ").arg(piece);
        saver.update(*message);
        std::printf("%lld %lld\n", static_cast<long long>(QDateTime::currentMSecsSinceEpoch()),
                    static_cast<long long>(message->text.size()));
        std::fflush(stdout);
        QThread::msleep(20);
    }
}
