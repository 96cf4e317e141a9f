// A one-port HTTP server on 127.0.0.1 that answers every request with a script of raw bytes,
// pauses and an optional abrupt close: what a remote engine's client must survive (401, 429
// with Retry-After, 500, a stream cut after N events, a stall, malformed events, a real server's
// exact framing split across TCP writes). Real sockets; no HTTP library on this side, so any
// framing can be sent.
#pragma once

#include <atomic>
#include <chrono>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace hearth::test {

struct ScriptStep {
    std::string bytes;                        // written as one send()
    std::chrono::milliseconds pause_after{};  // before the next step
};

struct HttpScript {
    std::vector<ScriptStep> steps;
    bool close_abruptly = false;  // reset the connection after the steps instead of a clean end
};

// The head of an HTTP/1.1 response with `status` and headers (each "Name: value").
std::string response_head(int status, const std::vector<std::string>& headers);
// A complete response with a JSON body.
std::string json_response(int status, const std::string& body,
                          const std::vector<std::string>& extra_headers = {});
// The head of a streamed (close-delimited) server-sent-events response.
std::string event_stream_head();
// One chat-completion chunk event carrying `text` (no JSON escaping: plain words only).
std::string content_event(const std::string& text);
// A streamed response: the head, then each event 5 ms apart, then `last_pause`; `abrupt`
// resets the connection at the end instead of closing it.
HttpScript stream_script(std::vector<std::string> events, bool abrupt = false,
                         std::chrono::milliseconds last_pause = std::chrono::milliseconds(0));
// A port on 127.0.0.1 where nothing listens (bound, then released).
int closed_port();

class ScriptedHttpServer final {
public:
    explicit ScriptedHttpServer(HttpScript script);
    ~ScriptedHttpServer();
    ScriptedHttpServer(const ScriptedHttpServer&) = delete;
    ScriptedHttpServer& operator=(const ScriptedHttpServer&) = delete;

    int port() const { return m_port; }
    std::string url() const { return "http://127.0.0.1:" + std::to_string(m_port) + "/v1"; }
    // The last request's raw head and body, as received.
    std::string last_request() const;
    int requests() const { return m_requests.load(); }

private:
    void serve();
    void answer(int connection);

    HttpScript m_script;
    int m_listener = -1;
    int m_port = 0;
    std::atomic<bool> m_stopping{false};
    std::atomic<int> m_requests{0};
    mutable std::mutex m_mutex;
    std::string m_last_request;
    std::jthread m_thread;
};

}  // namespace hearth::test
