#include "engine/remote/remote_error.h"

namespace hearth::remote {

std::string_view remote_failure_name(RemoteFailure failure) {
    switch (failure) {
        case RemoteFailure::BadAddress:
            return "bad address";
        case RemoteFailure::HostNotFound:
            return "host not found";
        case RemoteFailure::Refused:
            return "connection refused";
        case RemoteFailure::Tls:
            return "TLS error";
        case RemoteFailure::Unauthorized:
            return "unauthorized";
        case RemoteFailure::Forbidden:
            return "forbidden";
        case RemoteFailure::ModelNotFound:
            return "model not found";
        case RemoteFailure::RateLimited:
            return "rate limited";
        case RemoteFailure::ServerError:
            return "server error";
        case RemoteFailure::Rejected:
            return "request rejected";
        case RemoteFailure::StreamCut:
            return "stream cut";
        case RemoteFailure::Timeout:
            return "timeout";
        case RemoteFailure::MalformedStream:
            return "malformed stream";
    }
    return "unknown";
}

}  // namespace hearth::remote
