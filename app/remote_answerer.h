// What answers when the window chose a remote engine instead of a loaded file: a connection and
// one of its models, with the connection's API key read from the keyring, and the client that
// streams each answer. Lives on the engine thread, inside the worker; the request is the whole
// conversation each turn (the remote side's prompt cache does the reuse).
#pragma once

#include <atomic>
#include <chrono>

#include "app/core/api_key_store.h"
#include "app/core/remote_connection.h"
#include "engine/remote/remote_client.h"

namespace hearth {

class RemoteAnswerer final {
public:
    // Reads the connection's key from `keys`, which waits on the keyring: call it off the GUI
    // thread. Throws remote::RemoteError(BadAddress) for a base URL that cannot be used, and
    // std::runtime_error naming the cause when the key cannot be read.
    RemoteAnswerer(core::RemoteChoice choice, const core::ApiKeyStore& keys,
                   std::chrono::milliseconds idle_timeout);

    const core::RemoteChoice& choice() const { return m_choice; }

    // Streams the answer to `request` into `sink`; `cancel` stops it (the HTTP request is
    // closed). Failures throw remote::RemoteError with the part that arrived. The settings the
    // API could not carry come back as notices on the result.
    GenerationResult answer(const ChatRequest& request, const GenerationSink& sink,
                            const std::atomic<bool>* cancel);

private:
    core::RemoteChoice m_choice;
    remote::RemoteClient m_client;
};

}  // namespace hearth
