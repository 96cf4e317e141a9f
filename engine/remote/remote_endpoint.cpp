#include "engine/remote/remote_endpoint.h"

#include <charconv>

#include "engine/remote/remote_error.h"

namespace hearth::remote {
namespace {

[[noreturn]] void bad(const std::string& url, const std::string& why) {
    throw RemoteError(RemoteFailure::BadAddress, "The address '" + url + "' " + why);
}

int parse_port(const std::string& url, std::string_view text) {
    int port = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), port);
    if (error != std::errc() || end != text.data() + text.size() || port < 1 || port > 65535) {
        bad(url, "has an invalid port '" + std::string(text) + "' (1 to 65535)");
    }
    return port;
}

}  // namespace

std::string ParsedUrl::origin() const {
    const std::string shown = host.find(':') != std::string::npos ? "[" + host + "]" : host;
    return (tls ? "https://" : "http://") + shown + ":" + std::to_string(port);
}

ParsedUrl parse_base_url(const std::string& url) {
    ParsedUrl parsed;
    std::string_view rest = url;
    if (rest.starts_with("https://")) {
        parsed.tls = true;
        rest.remove_prefix(8);
    } else if (rest.starts_with("http://")) {
        rest.remove_prefix(7);
    } else {
        bad(url, "must start with http:// or https://");
    }
    if (rest.find_first_of("?#") != std::string_view::npos) {
        bad(url, "must not have a query or fragment");
    }
    const size_t slash = rest.find('/');
    std::string_view authority = rest.substr(0, slash);
    std::string path(slash == std::string_view::npos ? "" : rest.substr(slash));
    if (authority.find('@') != std::string_view::npos) {
        bad(url, "must not hold a user name; give the API key separately");
    }
    std::string_view port_text;
    if (authority.starts_with("[")) {
        const size_t close = authority.find(']');
        if (close == std::string_view::npos) bad(url, "has an unclosed IPv6 bracket");
        parsed.host = authority.substr(1, close - 1);
        std::string_view after = authority.substr(close + 1);
        if (!after.empty()) {
            if (after.front() != ':') bad(url, "has text after its IPv6 address");
            port_text = after.substr(1);
        }
    } else {
        const size_t colon = authority.rfind(':');
        parsed.host = authority.substr(0, colon);
        if (colon != std::string_view::npos) port_text = authority.substr(colon + 1);
    }
    if (parsed.host.empty()) bad(url, "has no host name");
    parsed.port = port_text.empty() ? (parsed.tls ? 443 : 80) : parse_port(url, port_text);
    while (!path.empty() && path.back() == '/') path.pop_back();
    // Ollama, vLLM and llama.cpp serve the API under /v1; users often paste the server's root.
    if (!path.ends_with("/v1")) path += "/v1";
    parsed.api_path = path;
    return parsed;
}

}  // namespace hearth::remote
