// A child process for the crash test: stores a finished exchange, then streams an answer into
// the history the way the window does (StreamingSaver), printing how much text exists after
// each piece, until it is killed.
#include <QCoreApplication>
#include <QDateTime>
#include <QThread>

#include <cstdio>

#include "app/core/history_store.h"
#include "app/core/streaming_saver.h"

int main(int argc, char** argv) {
    QCoreApplication application(argc, argv);
    if (argc < 2) return 2;
    hearth::core::HistoryStore store(QString::fromLocal8Bit(argv[1]));
    hearth::core::Conversation conversation(0, "crash test");
    const int id = store.create(conversation);
    conversation = hearth::core::Conversation(id, "crash test");
    const int question = conversation.add(-1, "user", "Tell me a long story.");
    const int first = conversation.add(question, "assistant", "A finished answer.", true);
    store.save_message(id, *conversation.find(question));
    store.save_message(id, *conversation.find(first));
    const int follow_up = conversation.add(first, "user", "Another one, please.");
    store.save_message(id, *conversation.find(follow_up));
    const int answer = conversation.add(follow_up, "assistant", {}, false);
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
