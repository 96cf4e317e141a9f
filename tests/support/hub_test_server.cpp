#include "tests/support/hub_test_server.h"

#include <httplib.h>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>
#include <chrono>
#include <stdexcept>

namespace hearth::test {
namespace {

constexpr size_t kChunk = 16 * 1024;

std::string lower(std::string text) {
    std::transform(text.begin(), text.end(), text.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return text;
}

void send_json(httplib::Response& response, const QJsonDocument& document) {
    response.set_content(document.toJson(QJsonDocument::Compact).toStdString(),
                         "application/json; charset=utf-8");
}

// The Hub's refusals carry X-Error-Code and X-Error-Message (huggingface_hub reads both).
void refuse(httplib::Response& response, int status, const char* code, const char* message) {
    response.status = status;
    response.set_header("X-Error-Code", code);
    response.set_header("X-Error-Message", message);
    response.set_content(std::string(R"({"error":")") + message + "\"}", "application/json");
}

// Until `marker` exists (at most 20 s), looking every 10 ms: the process that creates it is in
// another mount namespace and cannot signal otherwise.
void wait_for_file(const std::filesystem::path& marker) {
    for (int i = 0; i < 2000 && !std::filesystem::exists(marker); ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
}

}  // namespace

HubTestServer::HubTestServer(std::vector<HubTestRepository> repositories, std::string token)
    : m_repositories(std::move(repositories)),
      m_token(std::move(token)),
      m_http(std::make_unique<httplib::Server>()) {
    route();
    m_port = m_http->bind_to_any_port("127.0.0.1");
    if (m_port <= 0) throw std::runtime_error("the hub test server cannot listen on 127.0.0.1");
    m_thread = std::thread([this] {
        m_http->listen_after_bind();
        m_listening_ended = true;
    });
    // stop() can only end a listen loop that has begun (httplib 0.11 has no wait_until_ready).
    while (!m_http->is_running() && !m_listening_ended) {
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
}

HubTestServer::~HubTestServer() {
    m_http->stop();
    m_thread.join();
}

std::string HubTestServer::url() const {
    return "http://127.0.0.1:" + std::to_string(m_port);
}

void HubTestServer::corrupt(const std::string& path, long long offset) {
    std::lock_guard lock(m_mutex);
    m_corrupt[path] = offset;
}

void HubTestServer::hold_next_file_after(long long bytes, std::filesystem::path marker) {
    std::lock_guard lock(m_mutex);
    m_hold_after = bytes;
    m_hold_marker = std::move(marker);
}

void HubTestServer::limit_next(int count, int seconds) {
    m_retry_after = seconds;
    m_limited = count;
}

void HubTestServer::fail_next(int count, int status) {
    m_failing_status = status;
    m_failing = count;
}

std::vector<HubRequestRecord> HubTestServer::requests() const {
    std::lock_guard lock(m_mutex);
    return m_requests;
}

const HubTestRepository* HubTestServer::repository(const std::string& id) const {
    for (const auto& repository : m_repositories) {
        if (repository.id == id) return &repository;
    }
    return nullptr;
}

const HubTestFile* HubTestServer::file_by_sha(const std::string& sha256,
                                              const HubTestRepository** owner) const {
    for (const auto& repository : m_repositories) {
        for (const auto& file : repository.files) {
            if (file.sha256 == sha256) {
                *owner = &repository;
                return &file;
            }
        }
    }
    return nullptr;
}

void HubTestServer::route() {
    // Every request: recorded, rate-limited when asked, and refused for a gated repository
    // without the token.
    m_http->set_pre_routing_handler([this](const httplib::Request& request,
                                           httplib::Response& response) {
        const bool authorised =
            !m_token.empty() && request.get_header_value("Authorization") == "Bearer " + m_token;
        {
            std::lock_guard lock(m_mutex);
            std::string path = request.path;
            if (!request.params.empty()) path += "?";
            for (const auto& [key, value] : request.params) path += key + "=" + value + "&";
            m_requests.push_back({path, request.get_header_value("Range"), authorised});
        }
        if (m_limited > 0) {
            --m_limited;
            response.set_header("Retry-After", std::to_string(m_retry_after.load()));
            refuse(response, 429, "RateLimited", "Too many requests");
            return httplib::Server::HandlerResponse::Handled;
        }
        if (m_failing > 0) {
            --m_failing;
            response.status = m_failing_status;
            response.set_content("Internal Error", "text/plain");
            return httplib::Server::HandlerResponse::Handled;
        }
        for (const auto& repository : m_repositories) {
            const bool of_it = request.path.find("/" + repository.id + "/") != std::string::npos;
            if (of_it && repository.gated && !authorised) {
                refuse(response, 401, "GatedRepo",
                       "Access to model is restricted. You must have access to it and be "
                       "authenticated to access it. Please log in.");
                return httplib::Server::HandlerResponse::Handled;
            }
        }
        return httplib::Server::HandlerResponse::Unhandled;
    });

    m_http->Get("/api/models",
                [this](const httplib::Request& request, httplib::Response& response) {
                    const std::string words = lower(request.get_param_value("search"));
                    QJsonArray found;
                    for (const auto& repository : m_repositories) {
                        if (lower(repository.id).find(words) != std::string::npos) {
                            found.append(hub_search_entry(repository));
                        }
                    }
                    send_json(response, QJsonDocument(found));
                });

    m_http->Get(R"(/api/models/([^/]+/[^/]+)/tree/main)", [this](const httplib::Request& request,
                                                                 httplib::Response& response) {
        const auto* repository = this->repository(request.matches[1]);
        if (repository == nullptr) {
            refuse(response, 401, "RepoNotFound", "Repository not found");
            return;
        }
        const QJsonArray entries = hub_tree_entries(*repository);
        const int page = m_page_size;
        const int cursor = std::stoi("0" + request.get_param_value("cursor"));
        QJsonArray shown;
        for (int i = cursor; i < std::min<int>(entries.size(), cursor + page); ++i) {
            shown.append(entries[i]);
        }
        const TreePaging paging = m_tree_paging;
        if (paging == TreePaging::Loop) {
            response.set_header("Link", hub_tree_link(url() + request.path, cursor));
        } else if (cursor + page < entries.size()) {
            response.set_header("Link", hub_tree_link(url() + request.path, cursor + page));
        }
        send_json(response, QJsonDocument(shown));
    });

    // resolve/main: a redirect to the bytes, with the headers the Hub sends beside it.
    m_http->Get(R"(/([^/]+/[^/]+)/resolve/main/(.+))",
                [this](const httplib::Request& request, httplib::Response& response) {
                    const auto* repository = this->repository(request.matches[1]);
                    if (repository == nullptr) {
                        refuse(response, 401, "RepoNotFound", "Repository not found");
                        return;
                    }
                    const std::string path = request.matches[2];
                    for (const auto& file : repository->files) {
                        if (file.path != path) continue;
                        response.set_header("X-Linked-Size", std::to_string(file.bytes.size()));
                        response.set_header("X-Linked-Etag", "\"" + file.sha256 + "\"");
                        response.set_redirect(url() + "/cdn/" + file.sha256, 302);
                        return;
                    }
                    refuse(response, 404, "EntryNotFound", "Entry not found");
                });

    // The bytes, with Range (httplib answers 206 and slices; the provider sees the offset).
    m_http->Get(R"(/cdn/([0-9a-f]{64}))", [this](const httplib::Request& request,
                                                 httplib::Response& response) {
        const HubTestRepository* owner = nullptr;
        const auto* file = file_by_sha(request.matches[1], &owner);
        if (file == nullptr) {
            response.status = 404;
            return;
        }
        QByteArray bytes = file->bytes;
        {
            std::lock_guard lock(m_mutex);
            if (const auto found = m_corrupt.find(file->path); found != m_corrupt.end()) {
                bytes[static_cast<qsizetype>(found->second)] ^= 0x5a;
            }
        }
        const long long cut = m_cut_after.exchange(-1);
        long long hold = -1;
        std::filesystem::path marker;
        if (request.get_header_value("Range").empty()) {  // not a header read: a download
            std::lock_guard lock(m_mutex);
            std::swap(hold, m_hold_after);
            marker = m_hold_marker;
        }
        response.set_header("ETag", "\"" + file->sha256 + "\"");
        response.set_header("Accept-Ranges", "bytes");
        response.set_content_provider(
            static_cast<size_t>(bytes.size()), "application/octet-stream",
            [this, bytes, cut, hold, marker, sent = 0LL](size_t offset, size_t length,
                                                         httplib::DataSink& sink) mutable {
                size_t count = std::min(length, kChunk);
                if (hold >= 0 && sent >= hold) {
                    wait_for_file(marker);
                    hold = -1;
                }
                if (hold >= 0) count = std::min<size_t>(count, static_cast<size_t>(hold - sent));
                if (cut >= 0) {
                    if (sent >= cut) return false;  // closes the connection mid-body
                    count = std::min<size_t>(count, static_cast<size_t>(cut - sent));
                }
                // Counted before the write: once written, the client may have read the bytes and
                // the test asked for the count before this thread would add them.
                m_file_bytes_sent += static_cast<long long>(count);
                if (!sink.write(bytes.constData() + offset, count)) {
                    m_file_bytes_sent -= static_cast<long long>(count);
                    return false;
                }
                sent += static_cast<long long>(count);
                return true;
            });
    });
}

}  // namespace hearth::test
