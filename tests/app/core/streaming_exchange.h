// What the history writer children store before they stream: a conversation holding a finished
// exchange and a follow-up question, and the unfinished answer about to stream into it.
#pragma once

#include <QString>

#include "app/core/conversation.h"
#include "app/core/history_store.h"

namespace hearth::core::test {

struct StreamingExchange {
    Conversation conversation;
    int id = 0;      // in the store
    int answer = 0;  // the message that streams
};

inline StreamingExchange begin_streaming_exchange(HistoryStore& store, const QString& title) {
    const int id = store.create(Conversation(0, title));
    Conversation conversation(id, title);
    const int question = conversation.add(-1, "user", "Tell me a long story.");
    const int first = conversation.add(question, "assistant", "A finished answer.", true);
    store.save_message(id, *conversation.find(question));
    store.save_message(id, *conversation.find(first));
    const int follow_up = conversation.add(first, "user", "Another one, please.");
    store.save_message(id, *conversation.find(follow_up));
    const int answer = conversation.add(follow_up, "assistant", {}, false);
    return {conversation, id, answer};
}

}  // namespace hearth::core::test
