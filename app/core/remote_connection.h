// A remote engine the user connected to (vLLM, llama.cpp's server, Ollama, another Hearth's
// hearth-server): how to reach it, and which of its models answers. The API key is not here: it
// lives in the system keyring (ApiKeyStore, under the connection's name), never in settings.
#pragma once

#include <QString>

namespace hearth::core {

struct RemoteConnection {
    QString name;      // the user's name for it, unique among connections; the key's name too
    QString base_url;  // with or without /v1, e.g. http://gpu-box:8000/v1
    // A PEM certificate file trusted for this connection only (a self-signed server); empty:
    // the system's CA store alone.
    QString trusted_certificate;

    bool operator==(const RemoteConnection&) const = default;
};

// What answers a conversation when it is not a local file: a connection and one of its models.
struct RemoteChoice {
    RemoteConnection connection;
    QString model;  // the id the server listed (GET /v1/models)

    bool operator==(const RemoteChoice&) const = default;
};

}  // namespace hearth::core
