#include "tests/support/scripted_http_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <stdexcept>

namespace hearth::test {
namespace {

// Reads one request: its head, then as many body bytes as Content-Length says.
std::string read_request(int connection) {
    std::string request;
    char buffer[4096];
    size_t body_start = std::string::npos;
    size_t length = 0;
    while (true) {
        if (body_start != std::string::npos && request.size() >= body_start + length) break;
        const ssize_t got = recv(connection, buffer, sizeof buffer, 0);
        if (got <= 0) break;
        request.append(buffer, static_cast<size_t>(got));
        if (body_start == std::string::npos) {
            const size_t end = request.find("\r\n\r\n");
            if (end == std::string::npos) continue;
            body_start = end + 4;
            const size_t field = request.find("Content-Length: ");
            if (field != std::string::npos && field < end) {
                length = std::stoul(request.substr(field + 16));
            }
        }
    }
    return request;
}

}  // namespace

std::string response_head(int status, const std::vector<std::string>& headers) {
    std::string head = "HTTP/1.1 " + std::to_string(status) + " Scripted\r\n";
    for (const std::string& header : headers) head += header + "\r\n";
    return head + "Connection: close\r\n\r\n";
}

std::string json_response(int status, const std::string& body,
                          const std::vector<std::string>& extra_headers) {
    std::vector<std::string> headers = extra_headers;
    headers.push_back("Content-Type: application/json");
    headers.push_back("Content-Length: " + std::to_string(body.size()));
    return response_head(status, headers) + body;
}

std::string event_stream_head() {
    return response_head(200, {"Content-Type: text/event-stream", "Cache-Control: no-cache"});
}

std::string content_event(const std::string& text) {
    return R"(data: {"choices":[{"index":0,"delta":{"content":")" + text +
           R"("},"finish_reason":null}]})" + "\n\n";
}

HttpScript stream_script(std::vector<std::string> events, bool abrupt,
                         std::chrono::milliseconds last_pause) {
    HttpScript script{{{event_stream_head()}}, abrupt};
    for (std::string& event : events) {
        script.steps.push_back({std::move(event), std::chrono::milliseconds(5)});
    }
    script.steps.back().pause_after = last_pause;
    return script;
}

int closed_port() {
    const int probe = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t size = sizeof address;
    bind(probe, reinterpret_cast<sockaddr*>(&address), size);
    getsockname(probe, reinterpret_cast<sockaddr*>(&address), &size);
    close(probe);  // nothing listens there now
    return ntohs(address.sin_port);
}

ScriptedHttpServer::ScriptedHttpServer(HttpScript script) : m_script(std::move(script)) {
    m_listener = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t size = sizeof address;
    if (m_listener < 0 || bind(m_listener, reinterpret_cast<sockaddr*>(&address), size) != 0 ||
        listen(m_listener, 16) != 0 ||
        getsockname(m_listener, reinterpret_cast<sockaddr*>(&address), &size) != 0) {
        throw std::runtime_error("the scripted server could not listen on 127.0.0.1");
    }
    m_port = ntohs(address.sin_port);
    m_thread = std::jthread([this] { serve(); });
}

ScriptedHttpServer::~ScriptedHttpServer() {
    m_stopping = true;
    shutdown(m_listener, SHUT_RDWR);
    m_thread = {};  // joins
    close(m_listener);
}

std::string ScriptedHttpServer::last_request() const {
    const std::lock_guard lock(m_mutex);
    return m_last_request;
}

void ScriptedHttpServer::serve() {
    while (!m_stopping) {
        pollfd waiting{m_listener, POLLIN, 0};
        if (poll(&waiting, 1, 50) <= 0) continue;
        const int connection = accept(m_listener, nullptr, nullptr);
        if (connection < 0) continue;
        answer(connection);
    }
}

void ScriptedHttpServer::answer(int connection) {
    // A client that sends no HTTP request (a TLS handshake) gets the script all the same.
    timeval patience{0, 200'000};
    setsockopt(connection, SOL_SOCKET, SO_RCVTIMEO, &patience, sizeof patience);
    const std::string request = read_request(connection);
    {
        const std::lock_guard lock(m_mutex);
        m_last_request = request;
    }
    ++m_requests;
    for (const ScriptStep& step : m_script.steps) {
        if (send(connection, step.bytes.data(), step.bytes.size(), MSG_NOSIGNAL) < 0) break;
        // In slices, so a long stall ends as soon as the test is over.
        auto left = step.pause_after;
        while (left.count() > 0 && !m_stopping) {
            const auto slice = std::min(left, std::chrono::milliseconds(10));
            std::this_thread::sleep_for(slice);
            left -= slice;
        }
    }
    if (m_script.close_abruptly) {
        linger reset{1, 0};  // an RST, as a crashed server or a dropped network gives
        setsockopt(connection, SOL_SOCKET, SO_LINGER, &reset, sizeof reset);
    }
    close(connection);
}

}  // namespace hearth::test
