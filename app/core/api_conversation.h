// A chat answered through the in-process API server, as the user's history keeps it when
// Settings → Server asks for that: the request's system prompt, its user and assistant turns and
// the answer, under a title that says it came from the API. The window can then show, search,
// export and continue it like any other conversation.
#pragma once

#include <QString>

#include "app/core/conversation.h"
#include "engine/generation/generation_request.h"
#include "engine/runtime/chat_request.h"

namespace hearth::core {

// What made the answer, for its generation record.
struct AnswerOrigin {
    QString model_file;
    QString backend;  // as the engine reports it
};

// Every title of an API conversation starts with this.
inline constexpr const char* kApiTitlePrefix = "API: ";

// System and developer messages become the conversation's system prompt (joined by blank
// lines); user and assistant messages its thread, oldest first; `result` the answer that ends
// it, with the request's sampling and `origin` in its record (the seed is the request's, or 0
// when the server drew one). Tool calls and tool results have no place in a conversation here
// and are left out. The title is "API: " and the first user message's opening words.
Conversation api_conversation(const ChatRequest& request, const GenerationResult& result,
                              const AnswerOrigin& origin);

}  // namespace hearth::core
