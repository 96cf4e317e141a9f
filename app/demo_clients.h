// A few HTTP clients asking the in-process API server for stories, one request after another,
// until they are destroyed: the screenshot tour runs them so its pictures show the Server page
// and the dashboard with a server at work.
#pragma once

#include <atomic>
#include <thread>
#include <vector>

namespace hearth {

class DemoClients final {
public:
    // Starts `count` clients of 127.0.0.1:`port`.
    DemoClients(int port, int count);
    // Ends the clients after the requests they are waiting on.
    ~DemoClients();
    DemoClients(const DemoClients&) = delete;
    DemoClients& operator=(const DemoClients&) = delete;

private:
    void ask(int port, int client) const;

    std::atomic<bool> m_stop{false};
    std::vector<std::thread> m_clients;
};

}  // namespace hearth
