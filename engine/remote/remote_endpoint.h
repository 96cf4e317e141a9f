// Where a remote engine is and how to reach it: an OpenAI-compatible API's base URL (vLLM,
// llama.cpp's server, Ollama, another Hearth's hearth-server), the key it wants, and the limits
// of patience. Parsing checks the URL before any connection is tried.
#pragma once

#include <chrono>
#include <string>

namespace hearth::remote {

struct RemoteEndpoint {
    std::string base_url;  // e.g. http://gpu-box:8000/v1; "/v1" is added when the path lacks it
    std::string api_key;   // sent as a Bearer token; empty: none
    // A PEM certificate (or CA) file trusted for this connection alone, for a self-signed
    // server; empty: the system's CA store decides.
    std::string trusted_certificate;
    std::chrono::milliseconds connect_timeout{10'000};
    // The longest wait for the next event of a stream (or for any reply): a stream that stalls
    // longer, or sends only keep-alives that long, has failed.
    std::chrono::milliseconds idle_timeout{120'000};
};

struct ParsedUrl {
    bool tls = false;
    std::string host;  // without IPv6 brackets
    int port = 0;
    std::string api_path;  // e.g. "/v1", no trailing slash

    // scheme://host:port, as the HTTP client takes it
    std::string origin() const;
};

// Throws RemoteError(BadAddress) naming what is wrong: a scheme other than http or https, no
// host, a port outside 1..65535, a query or fragment.
ParsedUrl parse_base_url(const std::string& url);

}  // namespace hearth::remote
