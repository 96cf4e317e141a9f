// What a conversation asks the engine for: its visible thread and its settings, as the one
// request shape every front end uses.
#pragma once

#include "app/core/conversation.h"
#include "engine/runtime/chat_request.h"

namespace hearth::core {

// The thread on screen, oldest first, after the system prompt (when not blank), with the
// conversation's generation settings.
ChatRequest chat_request(const Conversation& conversation);
// The same, to go on with the answer that ends the thread: the engine is given the answer so
// far as the assistant's message to continue.
ChatRequest continue_request(const Conversation& conversation);

}  // namespace hearth::core
