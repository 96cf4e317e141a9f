// What went wrong talking to a remote engine, as a fact a front end can phrase and act on: the
// kind (to decide, say, whether waiting and retrying can help) and a message naming the cause.
// An error after the answer began carries the part that arrived, so nothing the user saw is lost.
#pragma once

#include <chrono>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include "engine/generation/generation_request.h"

namespace hearth::remote {

enum class RemoteFailure {
    BadAddress,       // the URL itself cannot be used
    HostNotFound,     // DNS
    Refused,          // nothing listens there, or the connection could not be made
    Tls,              // the TLS handshake or the certificate check failed
    Unauthorized,     // 401: no key or a wrong one
    Forbidden,        // 403
    ModelNotFound,    // 404 naming the model
    RateLimited,      // 429, with the server's Retry-After when it gave one
    ServerError,      // 5xx, or another status the API does not use for success
    Rejected,         // 400 and other 4xx: the server refused the request as made
    StreamCut,        // the connection ended before the answer did
    Timeout,          // nothing arrived for longer than the idle limit
    MalformedStream,  // an event that is not what the API sends
};

std::string_view remote_failure_name(RemoteFailure failure);

class RemoteError final : public std::runtime_error {
public:
    RemoteError(RemoteFailure failure, const std::string& message, int status = 0)
        : std::runtime_error(message), m_failure(failure), m_status(status) {}

    RemoteFailure failure() const { return m_failure; }
    int status() const { return m_status; }  // the HTTP status, 0 when none came
    std::optional<std::chrono::seconds> retry_after;
    // What arrived before the failure (text, tokens counted, timings); empty when none did.
    GenerationResult partial;

private:
    RemoteFailure m_failure;
    int m_status;
};

}  // namespace hearth::remote
