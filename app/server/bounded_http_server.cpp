#include "app/server/bounded_http_server.h"

#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>

namespace hearth::server {
namespace {

// How often a connection waiting for its next request checks whether the server stops.
constexpr int kStopCheckMilliseconds = 100;

int milliseconds(time_t seconds, time_t microseconds) {
    return static_cast<int>(seconds * 1000 + microseconds / 1000);
}

bool wait_for(int socket, short events, int timeout_milliseconds) {
    pollfd entry{.fd = socket, .events = events, .revents = 0};
    int ready = 0;
    do {
        ready = ::poll(&entry, 1, timeout_milliseconds);
    } while (ready < 0 && errno == EINTR);
    return ready > 0;
}

void address_of(int socket, bool peer, std::string& ip, int& port) {
    sockaddr_storage address{};
    socklen_t length = sizeof address;
    auto* raw = reinterpret_cast<sockaddr*>(&address);
    if ((peer ? ::getpeername(socket, raw, &length) : ::getsockname(socket, raw, &length)) != 0) {
        return;
    }
    std::array<char, NI_MAXHOST> host{};
    std::array<char, NI_MAXSERV> service{};
    if (::getnameinfo(raw, length, host.data(), host.size(), service.data(), service.size(),
                      NI_NUMERICHOST | NI_NUMERICSERV) == 0) {
        ip = host.data();
        port = std::atoi(service.data());
    }
}

// One connection's socket as httplib reads and writes it, reads buffered (httplib reads a head
// a byte at a time), and the bytes of each request's head counted against a budget.
class BoundedSocketStream final : public httplib::Stream {
public:
    BoundedSocketStream(int socket, size_t max_head_bytes, int read_timeout, int write_timeout)
        : m_socket(socket),
          m_max_head_bytes(max_head_bytes),
          m_read_timeout(read_timeout),
          m_write_timeout(write_timeout) {}

    // A new request begins: its request line and headers are counted from here...
    void begin_head() {
        m_head_bytes = 0;
        m_in_head = true;
    }
    // ...to here (httplib has parsed them; its body is bounded by the payload limit).
    void end_head() { m_in_head = false; }
    // Whether the request's head ran past the budget (it was refused; the connection ends).
    bool head_exceeded() const { return m_in_head && m_head_bytes >= m_max_head_bytes; }

    // Whether a next request begins within `timeout_seconds`; false as soon as `stopping` says.
    template <typename Stopping>
    bool wait_for_request(time_t timeout_seconds, const Stopping& stopping) {
        if (buffered() > 0) return true;
        const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_seconds);
        while (!stopping()) {
            if (wait_for(m_socket, POLLIN, kStopCheckMilliseconds)) return true;
            if (std::chrono::steady_clock::now() >= until) return false;
        }
        return false;
    }

    bool is_readable() const override {
        return buffered() > 0 || wait_for(m_socket, POLLIN, m_read_timeout);
    }

    // Ready to take bytes, and the peer has not closed the connection.
    bool is_writable() const override {
        if (!wait_for(m_socket, POLLOUT, m_write_timeout)) return false;
        if (!wait_for(m_socket, POLLIN, 0)) return true;
        char byte = 0;
        return ::recv(m_socket, &byte, 1, MSG_PEEK) > 0;
    }

    ssize_t read(char* data, size_t size) override {
        if (m_in_head) {
            if (m_head_bytes >= m_max_head_bytes) return -1;  // httplib answers 400
            size = std::min(size, m_max_head_bytes - m_head_bytes);
        }
        if (buffered() == 0 && !fill()) return m_last_read;
        const size_t taken = std::min(size, buffered());
        std::memcpy(data, m_buffer.data() + m_start, taken);
        m_start += taken;
        if (m_in_head) m_head_bytes += taken;
        return static_cast<ssize_t>(taken);
    }

    ssize_t write(const char* data, size_t size) override {
        if (!is_writable()) return -1;
        return ::send(m_socket, data, size, MSG_NOSIGNAL);
    }

    void get_remote_ip_and_port(std::string& ip, int& port) const override {
        address_of(m_socket, true, ip, port);
    }
    void get_local_ip_and_port(std::string& ip, int& port) const override {
        address_of(m_socket, false, ip, port);
    }
    socket_t socket() const override { return m_socket; }

private:
    size_t buffered() const { return m_end - m_start; }

    // Reads what has arrived into the empty buffer; false at the end of the stream (0) or on
    // an error or timeout (-1), kept in m_last_read.
    bool fill() {
        m_start = m_end = 0;
        if (!wait_for(m_socket, POLLIN, m_read_timeout)) {
            m_last_read = -1;
            return false;
        }
        ssize_t received = 0;
        do {
            received = ::recv(m_socket, m_buffer.data(), m_buffer.size(), 0);
        } while (received < 0 && errno == EINTR);
        if (received <= 0) {
            m_last_read = received;
            return false;
        }
        m_end = static_cast<size_t>(received);
        return true;
    }

    int m_socket;
    size_t m_max_head_bytes;
    int m_read_timeout;   // milliseconds
    int m_write_timeout;  // milliseconds
    std::array<char, 4096> m_buffer{};
    size_t m_start = 0;
    size_t m_end = 0;
    ssize_t m_last_read = 0;
    size_t m_head_bytes = 0;
    bool m_in_head = false;
};

}  // namespace

void BoundedHttpServer::widen_backlog() {
    // listen() again on a listening socket only changes its backlog; SOMAXCONN is capped by the
    // system's net.core.somaxconn.
    if (svr_sock_ != INVALID_SOCKET) ::listen(svr_sock_, SOMAXCONN);
}

bool BoundedHttpServer::process_and_close_socket(socket_t socket) {
    BoundedSocketStream stream(socket, m_max_head_bytes,
                               milliseconds(read_timeout_sec_, read_timeout_usec_),
                               milliseconds(write_timeout_sec_, write_timeout_usec_));
    const auto stopping = [this] { return svr_sock_ == INVALID_SOCKET; };
    bool served = false;
    for (size_t left = keep_alive_max_count_;
         left > 0 && stream.wait_for_request(keep_alive_timeout_sec_, stopping); --left) {
        stream.begin_head();
        bool closed = false;
        served = process_request(stream, left == 1, closed,
                                 [&stream](httplib::Request&) { stream.end_head(); });
        if (!served || closed || stream.head_exceeded()) break;
    }
    ::shutdown(socket, SHUT_RDWR);
    ::close(socket);
    return served;
}

}  // namespace hearth::server
