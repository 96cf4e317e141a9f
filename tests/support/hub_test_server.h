// A loopback stand-in for Hugging Face's Hub, answering the endpoints Hearth's downloader uses
// the way the real Hub does: the model search (GET /api/models?search=), a repository's tree
// with sizes and LFS sha256 (GET /api/models/REPO/tree/main, paginated with a Link header),
// and files (GET /REPO/resolve/main/FILE, a 302 to where the bytes are, which honour Range).
// Files are real files (the shared models). Faults a downloader must survive can be switched
// on: a connection cut after N bytes, a corrupted byte, a gated repository, 429 with
// Retry-After.
#pragma once

#include <atomic>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "tests/support/hub_answers.h"

namespace httplib {
class Server;
}

namespace hearth::test {

struct HubRequestRecord {
    std::string path;         // with the query
    std::string range;        // the Range header, or empty
    bool authorised = false;  // carried "Authorization: Bearer TOKEN"
};

class HubTestServer final {
public:
    explicit HubTestServer(std::vector<HubTestRepository> repositories, std::string token = {});
    ~HubTestServer();
    HubTestServer(const HubTestServer&) = delete;
    HubTestServer& operator=(const HubTestServer&) = delete;

    std::string url() const;  // http://127.0.0.1:PORT

    // The next file response stops after `bytes` of its body and the connection is closed.
    void cut_next_file_after(long long bytes) { m_cut_after = bytes; }
    // The next whole-file response (one without Range) pauses after `bytes` of its body until
    // `marker` exists (another process, in its own mount namespace, fills a disk meanwhile).
    void hold_next_file_after(long long bytes, std::filesystem::path marker);
    // Every response for `path` has the byte at `offset` flipped (the tree keeps the true
    // sha256).
    void corrupt(const std::string& path, long long offset);
    // The next `count` requests answer 429 with Retry-After: `seconds`.
    void limit_next(int count, int seconds);
    // The next `count` requests answer `status` (a 5xx: the Hub failing).
    void fail_next(int count, int status);
    // The tree lists this many entries per page (the Hub pages long trees).
    void set_page_size(int entries) { m_page_size = entries; }
    // What a broken or hostile server does: every tree page links to the same page again.
    enum class TreePaging { Normal, Loop };
    void set_tree_paging(TreePaging paging) { m_tree_paging = paging; }

    std::vector<HubRequestRecord> requests() const;
    // Body bytes of files sent so far, over all responses.
    long long file_bytes_sent() const { return m_file_bytes_sent; }

private:
    void route();
    const HubTestRepository* repository(const std::string& id) const;
    const HubTestFile* file_by_sha(const std::string& sha256,
                                   const HubTestRepository** owner) const;

    std::vector<HubTestRepository> m_repositories;
    std::string m_token;
    std::unique_ptr<httplib::Server> m_http;
    int m_port = 0;
    std::thread m_thread;
    std::atomic<bool> m_listening_ended{false};
    std::atomic<long long> m_cut_after{-1};
    std::atomic<int> m_limited{0};
    std::atomic<int> m_retry_after{0};
    std::atomic<int> m_failing{0};
    std::atomic<int> m_failing_status{500};
    std::atomic<int> m_page_size{1000};
    std::atomic<TreePaging> m_tree_paging{TreePaging::Normal};
    std::atomic<long long> m_file_bytes_sent{0};
    mutable std::mutex m_mutex;
    std::vector<HubRequestRecord> m_requests;
    std::map<std::string, long long> m_corrupt;  // path -> offset
    long long m_hold_after = -1;
    std::filesystem::path m_hold_marker;
};

}  // namespace hearth::test
