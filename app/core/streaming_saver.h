// Writes an answer to the history while it streams: at most every 500 ms, and always when it
// ends. A crash mid-answer therefore loses at most the last half second of text, and the
// partial answer is marked unfinished.
#pragma once

#include <QElapsedTimer>

#include "app/core/history_store.h"

namespace hearth::core {

class StreamingSaver final {
public:
    static constexpr qint64 kIntervalMilliseconds = 500;

    StreamingSaver(HistoryStore* store, int conversation)
        : m_store(store), m_conversation(conversation) {}

    // The answer as it stands; written when the last write is at least the interval old.
    void update(const Message& message);
    // The answer is complete (or stopped): written now.
    void finish(const Message& message);

private:
    HistoryStore* m_store;
    int m_conversation;
    QElapsedTimer m_since_write;
};

}  // namespace hearth::core
