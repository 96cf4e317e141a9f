// httplib's server with every request's head bounded. cpp-httplib 0.11.4 (Debian 12's) reads a
// header line to its end before checking its length and takes any number of lines, so one
// client could make it hold gigabytes before a handler runs. This server reads each connection
// through its own stream, which refuses a request line plus headers past a byte budget (httplib
// then answers 400 and closes); bodies are bounded by set_payload_max_length as before. It also
// notices stop() between keep-alive requests within a tenth of a second instead of up to the
// keep-alive timeout, and it lets the listening socket queue as many connections as the system
// allows (httplib's own backlog of 5 drops the handshakes of a burst of clients, which then
// retry one to several seconds later).
#pragma once

#include <httplib.h>

#include <cstddef>

namespace hearth::server {

class BoundedHttpServer final : public httplib::Server {
public:
    explicit BoundedHttpServer(size_t max_head_bytes) : m_max_head_bytes(max_head_bytes) {}

    // After bind_to_port or bind_to_any_port: the longest accept queue the system allows.
    void widen_backlog();

private:
    // httplib calls this (a private virtual) on a pool thread for each accepted connection, and
    // it serves the connection's requests in turn. Keep-alive as httplib's own: up to
    // keep_alive_max_count_ requests, each waited for up to keep_alive_timeout_sec_.
    bool process_and_close_socket(socket_t socket) override;

    size_t m_max_head_bytes;
};

}  // namespace hearth::server
