#include "app/demo_clients.h"

#include <fmt/format.h>
#include <httplib.h>

namespace hearth {
namespace {

constexpr const char* kQuestions[] = {"Once upon a time", "Tell me about a dog named Max.",
                                      "The little boat", "Lily found a red ball"};

}  // namespace

DemoClients::DemoClients(int port, int count) {
    for (int client = 0; client < count; ++client)
        m_clients.emplace_back([this, port, client] { ask(port, client); });
}

DemoClients::~DemoClients() {
    m_stop = true;
    for (auto& client : m_clients) client.join();
}

void DemoClients::ask(int port, int client) const {
    httplib::Client connection("127.0.0.1", port);
    const std::string body = fmt::format(
        R"({{"messages":[{{"role":"user","content":"{}"}}],"max_tokens":400,"temperature":0.8}})",
        kQuestions[static_cast<size_t>(client) % std::size(kQuestions)]);
    while (!m_stop) {
        if (!connection.Post("/v1/chat/completions", body, "application/json")) return;
    }
}

}  // namespace hearth
