#include "engine/remote/remote_client.h"

#include <httplib.h>
#include <netdb.h>
#include <sys/socket.h>

#include <charconv>
#include <chrono>
#include <exception>
#include <optional>
#include <thread>

#include "engine/remote/chat_request_body.h"
#include "engine/remote/completion_events.h"
#include "engine/remote/remote_error.h"
#include "engine/remote/sse_reader.h"

namespace hearth::remote {
namespace {

using Clock = std::chrono::steady_clock;

// An error body or a non-streamed answer larger than this is not one a real server sends.
constexpr size_t kMaxBodyBytes = 64u << 20;
constexpr auto kCancelPoll = std::chrono::milliseconds(20);

int64_t nanoseconds(Clock::duration duration) {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(duration).count();
}

std::string seconds_text(std::chrono::milliseconds duration) {
    return std::to_string(duration.count() / 1000.0).substr(0, 4) + " s";
}

// Stops the client's request from another thread when the flag becomes true: a stalled read
// would otherwise notice a cancel only at its timeout.
class CancelWatch final {
public:
    CancelWatch(httplib::Client& client, const std::atomic<bool>* cancel) {
        if (cancel == nullptr) return;
        m_thread = std::jthread([&client, cancel](std::stop_token stop) {
            while (!stop.stop_requested()) {
                if (cancel->load()) {
                    client.stop();
                    return;
                }
                std::this_thread::sleep_for(kCancelPoll);
            }
        });
    }

private:
    std::jthread m_thread;
};

std::optional<std::chrono::seconds> retry_after(const httplib::Response& response) {
    if (!response.has_header("Retry-After")) return std::nullopt;
    const std::string value = response.get_header_value("Retry-After");
    int seconds = 0;
    const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), seconds);
    // The other form, an HTTP date, is rare from API servers; it is left unread.
    if (error != std::errc() || end != value.data() + value.size() || seconds < 0) {
        return std::nullopt;
    }
    return std::chrono::seconds(seconds);
}

RemoteFailure failure_of_status(int status) {
    switch (status) {
        case 401:
            return RemoteFailure::Unauthorized;
        case 403:
            return RemoteFailure::Forbidden;
        case 404:
            return RemoteFailure::ModelNotFound;
        case 429:
            return RemoteFailure::RateLimited;
        default:
            return status >= 400 && status < 500 ? RemoteFailure::Rejected
                                                 : RemoteFailure::ServerError;
    }
}

StopReason stop_reason_of(const std::string& finish_reason) {
    return finish_reason == "length" ? StopReason::MaxTokens : StopReason::EndOfGeneration;
}

std::unique_ptr<httplib::Client> make_client(const RemoteEndpoint& endpoint, const ParsedUrl& url) {
    auto client = std::make_unique<httplib::Client>(url.origin());
    const auto seconds = [](std::chrono::milliseconds duration) {
        return std::chrono::duration_cast<std::chrono::microseconds>(duration);
    };
    client->set_connection_timeout(seconds(endpoint.connect_timeout));
    client->set_read_timeout(seconds(endpoint.idle_timeout));
    client->set_write_timeout(seconds(endpoint.idle_timeout));
    if (url.tls) {
        client->enable_server_certificate_verification(true);
        if (!endpoint.trusted_certificate.empty()) {
            client->set_ca_cert_path(endpoint.trusted_certificate);
        }
    }
    return client;
}

httplib::Headers request_headers(const RemoteEndpoint& endpoint, bool stream) {
    httplib::Headers headers{{"Accept", stream ? "text/event-stream" : "application/json"}};
    if (!endpoint.api_key.empty()) headers.emplace("Authorization", "Bearer " + endpoint.api_key);
    return headers;
}

// Why `host` does not resolve, or nothing when it does. Asked only after a connection failed,
// so that a name DNS does not know is told apart from a refused connection without a second
// lookup on every request.
std::optional<std::string> lookup_failure(const std::string& host) {
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* found = nullptr;
    const int status = getaddrinfo(host.c_str(), nullptr, &hints, &found);
    if (found != nullptr) freeaddrinfo(found);
    if (status == 0) return std::nullopt;
    return gai_strerror(status);
}

// The failure when the HTTP exchange itself did not complete.
RemoteError transport_error(httplib::Error error, const ParsedUrl& url,
                            const RemoteEndpoint& endpoint, bool replied) {
    const std::string where = url.origin();
    switch (error) {
        case httplib::Error::Connection:
            if (const auto unknown = lookup_failure(url.host)) {
                return {RemoteFailure::HostNotFound,
                        "Could not find the host '" + url.host + "': " + *unknown};
            }
            return {RemoteFailure::Refused, "Could not connect to " + where +
                                                " (the connection was refused or the host is "
                                                "unreachable)"};
        case httplib::Error::ConnectionTimeout:
            return {RemoteFailure::Timeout, "No connection to " + where + " within " +
                                                seconds_text(endpoint.connect_timeout)};
        case httplib::Error::SSLConnection:
        case httplib::Error::SSLLoadingCerts:
        case httplib::Error::SSLServerVerification:
            return {RemoteFailure::Tls,
                    "The secure connection to " + where + " failed (" + httplib::to_string(error) +
                        "); if the server uses a self-signed certificate, trust "
                        "it for this connection"};
        default:
            return {RemoteFailure::StreamCut,
                    replied
                        ? "The connection to " + where + " closed before the answer ended (" +
                              httplib::to_string(error) + ")"
                        : "The server at " + where + " closed the connection without answering (" +
                              httplib::to_string(error) + ")"};
    }
}

RemoteError status_error(int status, const std::string& body, const std::string& model,
                         const std::optional<std::chrono::seconds>& retry) {
    const RemoteFailure failure = failure_of_status(status);
    std::string message = "The server answered " + std::to_string(status);
    switch (failure) {
        case RemoteFailure::Unauthorized:
            message += ": the API key is missing or wrong";
            break;
        case RemoteFailure::Forbidden:
            message += ": this key may not use it";
            break;
        case RemoteFailure::ModelNotFound:
            message += ": it has no model '" + model + "'";
            break;
        case RemoteFailure::RateLimited:
            message += ": too many requests";
            if (retry) message += "; retry after " + std::to_string(retry->count()) + " s";
            break;
        default:
            break;
    }
    RemoteError error(failure, message + " (" + error_message(body) + ")", status);
    error.retry_after = retry;
    return error;
}

}  // namespace

// One request's state, filled by the HTTP client's callbacks on this thread.
struct RemoteClient::Exchange {
    const RemoteEndpoint& endpoint;
    const GenerationSink& sink;
    const std::atomic<bool>* cancel;
    Clock::time_point start = Clock::now();
    Clock::time_point last_event = start;
    int status = 0;
    std::optional<std::chrono::seconds> retry_after;
    std::string body;  // an error's body, or a whole non-streamed answer
    SseReader reader;
    RemoteAnswer answer;
    std::optional<Usage> usage;
    bool ended = false;      // [DONE] or a finish_reason arrived
    bool cancelled = false;  // the sink or the flag stopped it
    bool idle = false;       // only keep-alives for longer than the idle limit
    std::exception_ptr failure;

    bool take_body(const char* data, size_t size) {
        if (body.size() + size > kMaxBodyBytes) {
            failure = std::make_exception_ptr(RemoteError(
                RemoteFailure::MalformedStream, "The server's reply is larger than " +
                                                    std::to_string(kMaxBodyBytes >> 20) + " MiB"));
            return false;
        }
        body.append(data, size);
        return true;
    }

    void apply(const CompletionDelta& delta, TokenChunk& chunk) {
        if (delta.usage) usage = delta.usage;
        if (delta.finish_reason) {
            answer.finish_reason = *delta.finish_reason;
            ended = true;
        }
        if (delta.done) ended = true;
        if (delta.content.empty() && delta.reasoning.empty()) return;
        // Servers send one token per event; each event's arrival is that token's time.
        const int64_t now = nanoseconds(Clock::now() - start);
        chunk.text += delta.content;
        chunk.token_times_ns.push_back(now);
        answer.result.text += delta.content;
        answer.result.stats.token_times_ns.push_back(now);
        // Reasoning streams apart from the answer, as the local engine's does (TokenChunk).
        if (!delta.reasoning.empty()) {
            chunk.reasoning += delta.reasoning;
            ++chunk.reasoning_tokens;
            answer.result.reasoning += delta.reasoning;
            ++answer.result.stats.reasoning_tokens;
        }
    }

    bool take_events(const char* data, size_t size) {
        TokenChunk chunk;
        try {
            for (const SseEvent& event : reader.feed(std::string_view(data, size))) {
                last_event = Clock::now();
                if (event.type == "error") {
                    throw RemoteError(
                        RemoteFailure::ServerError,
                        "The server stopped the answer: " + error_message(event.data));
                }
                apply(parse_chunk(event.data), chunk);
            }
        } catch (...) {
            failure = std::current_exception();
            return false;
        }
        if (!chunk.empty() && sink.on_chunk && !sink.on_chunk(chunk)) cancelled = true;
        if (cancel != nullptr && cancel->load()) cancelled = true;
        if (Clock::now() - last_event > endpoint.idle_timeout) idle = true;
        return !cancelled && !idle;
    }

    RemoteAnswer finish(bool completed, httplib::Error error, const ParsedUrl& url,
                        const std::string& model, bool stream);
    void set_stats();
    [[noreturn]] void fail(RemoteError error);
};

void RemoteClient::Exchange::set_stats() {
    GenerationStats& stats = answer.result.stats;
    const std::vector<int64_t>& times = stats.token_times_ns;
    stats.generated_tokens = usage ? usage->completion_tokens : static_cast<int>(times.size());
    if (usage) {
        stats.prompt_tokens = usage->prompt_tokens;
        stats.cached_tokens = usage->cached_tokens;
        stats.prefilled_tokens = usage->prompt_tokens - usage->cached_tokens;
    }
    if (!times.empty()) {
        stats.time_to_first_token_ns = times.front();
        stats.decode_ns = times.back() - times.front();
    }
    stats.stop_reason = cancelled ? StopReason::Cancelled : stop_reason_of(answer.finish_reason);
}

void RemoteClient::Exchange::fail(RemoteError error) {
    set_stats();
    error.partial = answer.result;
    throw error;
}

RemoteAnswer RemoteClient::Exchange::finish(bool completed, httplib::Error error,
                                            const ParsedUrl& url, const std::string& model,
                                            bool stream) {
    if (failure) {
        try {
            std::rethrow_exception(failure);
        } catch (RemoteError& raised) {
            fail(std::move(raised));
        }
    }
    if (cancel != nullptr && cancel->load()) cancelled = true;
    if (!cancelled) {
        if (idle) {
            fail({RemoteFailure::Timeout, "The server sent nothing but keep-alives for " +
                                              seconds_text(endpoint.idle_timeout)});
        }
        if (!completed) {
            const bool stalled =
                status == 200 && Clock::now() - last_event >= endpoint.idle_timeout;
            if (stalled) {
                fail({RemoteFailure::Timeout, "The answer stalled: nothing arrived for " +
                                                  seconds_text(endpoint.idle_timeout)});
            }
            fail(transport_error(error, url, endpoint, status != 0));
        }
        if (status != 200) fail(status_error(status, body, model, retry_after));
        if (!stream) {
            TokenChunk chunk;
            try {
                apply(parse_completion(body), chunk);
            } catch (RemoteError& raised) {
                fail(std::move(raised));
            }
            if (!chunk.empty() && sink.on_chunk) sink.on_chunk(chunk);
            ended = true;
        }
        if (!ended || reader.has_partial_event()) {
            fail({RemoteFailure::StreamCut,
                  "The stream from " + url.origin() + " ended before the answer did"});
        }
    }
    set_stats();
    return std::move(answer);
}

RemoteClient::RemoteClient(RemoteEndpoint endpoint)
    : m_endpoint(std::move(endpoint)), m_url(parse_base_url(m_endpoint.base_url)) {}

RemoteClient::~RemoteClient() = default;

std::vector<std::string> RemoteClient::models(const std::atomic<bool>* cancel) {
    auto client = make_client(m_endpoint, m_url);
    const httplib::Result result = [&] {
        const CancelWatch watch(*client, cancel);
        return client->Get(m_url.api_path + "/models", request_headers(m_endpoint, false));
    }();
    if (!result) throw transport_error(result.error(), m_url, m_endpoint, false);
    if (result->status != 200) {
        throw status_error(result->status, result->body, "", retry_after(*result));
    }
    return parse_model_list(result->body);
}

RemoteAnswer RemoteClient::chat(const std::string& model, const ChatRequest& request,
                                const GenerationSink& sink, const std::atomic<bool>* cancel,
                                bool stream) {
    const ChatRequestBody body = chat_request_body(model, request, stream);
    auto client = make_client(m_endpoint, m_url);
    Exchange exchange{m_endpoint, sink, cancel};
    exchange.answer.settings_not_sent = body.not_sent;
    exchange.answer.settings_as_extensions = body.extensions;

    httplib::Request http;
    http.method = "POST";
    http.path = m_url.api_path + "/chat/completions";
    http.headers = request_headers(m_endpoint, stream);
    http.headers.emplace("Content-Type", "application/json");
    http.body = body.json;
    http.response_handler = [&](const httplib::Response& response) {
        exchange.status = response.status;
        exchange.retry_after = retry_after(response);
        return true;
    };
    http.content_receiver = [&](const char* data, size_t size, uint64_t, uint64_t) {
        if (exchange.status != 200 || !stream) return exchange.take_body(data, size);
        return exchange.take_events(data, size);
    };
    httplib::Response response;
    httplib::Error error = httplib::Error::Success;
    bool completed = false;
    {
        const CancelWatch watch(*client, cancel);
        completed = client->send(http, response, error);
    }
    return exchange.finish(completed, error, m_url, model, stream);
}

}  // namespace hearth::remote
