// The server under load and faults, bounded in count and time: 64 concurrent clients with 4
// streamed requests each, a quarter of them hanging up mid-stream and some reading slowly, then
// malformed requests of every kind. Afterwards every completed answer is whole and equal to the
// answer the same prompt gets alone, every row is free, memory is back where it was, and the
// server still answers.
#include <gtest/gtest.h>
#include <httplib.h>

#include <atomic>
#include <cstdio>
#include <fstream>
#include <mutex>
#include <thread>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/lsan_interface.h>
#endif

#include "app/server/api_server.h"
#include "engine/runtime/engine.h"
#include "engine/text/jinja/json.h"
#include "tests/support/shared_data.h"

namespace hearth::server {
namespace {

using namespace std::chrono_literals;

constexpr int kClients = 64;
constexpr int kRequestsPerClient = 4;
constexpr int kPrompts = 4;

std::string prompt(int index) {
    static const char* const kTexts[kPrompts] = {"Once upon a time", "The little dog",
                                                 "In the forest there was", "Lily and Tom"};
    return kTexts[index % kPrompts];
}

std::string completion_body(int index, bool stream) {
    return R"({"prompt":")" + prompt(index) + R"(","max_tokens":24,"temperature":0,"stream":)" +
           (stream ? "true" : "false") + "}";
}

// Resident memory of this process, from /proc.
size_t resident_bytes() {
    std::ifstream statm("/proc/self/statm");
    size_t pages = 0, resident = 0;
    statm >> pages >> resident;
    return resident * static_cast<size_t>(sysconf(_SC_PAGESIZE));
}

// The text a streamed completion carried, or nullopt (with the reason) when its framing is not
// whole: every event JSON, the last one [DONE].
std::optional<std::string> streamed_text(const std::string& body, std::string& problem) {
    std::string text;
    size_t start = 0;
    bool done = false;
    while (start < body.size()) {
        const size_t end = body.find("\n\n", start);
        if (end == std::string::npos) {
            problem = "an event without its blank line";
            return std::nullopt;
        }
        const std::string event = body.substr(start, end - start);
        start = end + 2;
        if (event.rfind("data: ", 0) != 0 || done) {
            problem = "not a data line, or something after [DONE]: " + event;
            return std::nullopt;
        }
        const std::string payload = event.substr(6);
        if (payload == "[DONE]") {
            done = true;
            continue;
        }
        const auto chunk = jinja::parse_json(payload);
        for (const auto& choice : chunk.as_object().find("choices")->as_array()) {
            text += choice.as_object().find("text")->as_string();
        }
    }
    if (!done) problem = "no [DONE]";
    return done ? std::optional(text) : std::nullopt;
}

class ServerLoadTest : public testing::Test {
protected:
    void SetUp() override {
        const auto model = test::model_path("stories260K.gguf");
        m_engine = std::make_unique<Engine>(
            EngineOptions{.backends = {.self_test_model = model},
                          .backend = {.kind = BackendPreference::Kind::Cpu, .threads = 2}});
        m_engine->load(model);
        // Room for every client at once; a sanitizer build is slow, so queued requests wait long.
        m_scheduler = std::make_unique<BatchScheduler>(
            *m_engine, SchedulerOptions{.rows = 8,
                                        .context_length = 256,
                                        .queue_limit = kClients,
                                        .queue_wait = std::chrono::minutes(5)});
        m_server = std::make_unique<ApiServer>(*m_scheduler,
                                               ApiServerOptions{.host = "127.0.0.1", .port = 0});
        m_server->start();
    }

    httplib::Client client() const {
        httplib::Client client("127.0.0.1", m_server->port());
        client.set_read_timeout(300, 0);
        client.set_connection_timeout(30, 0);
        return client;
    }

    // What each prompt's answer is alone, from a non-streamed request.
    std::vector<std::string> expected_answers() const {
        std::vector<std::string> answers;
        for (int p = 0; p < kPrompts; ++p) {
            const auto result =
                client().Post("/v1/completions", completion_body(p, false), "application/json");
            EXPECT_TRUE(result && result->status == 200);
            const auto body = jinja::parse_json(result->body);
            answers.push_back(body.as_object()
                                  .find("choices")
                                  ->as_array()[0]
                                  .as_object()
                                  .find("text")
                                  ->as_string());
        }
        return answers;
    }

    struct Tally {
        std::atomic<int> whole{0}, hung_up{0};
        std::mutex mutex;
        std::vector<std::string> problems;
        void problem(const std::string& text) {
            const std::lock_guard lock(mutex);
            problems.push_back(text);
        }
    };

    // One client's requests: `role` 0 hangs up after its first chunk, 1 reads slowly (a pause
    // per chunk), the others read as fast as they can.
    void run_client(int index, const std::vector<std::string>& expected, Tally& tally) const {
        const int role = index % 4 == 0 ? 0 : index % 8 == 1 ? 1 : 2;
        for (int r = 0; r < kRequestsPerClient; ++r) {
            const int which = index + r;
            httplib::Request request;
            request.method = "POST";
            request.path = "/v1/completions";
            request.body = completion_body(which, true);
            request.set_header("Content-Type", "application/json");
            std::string body;
            int chunks = 0;
            request.content_receiver = [&](const char* data, size_t size, uint64_t, uint64_t) {
                body.append(data, size);
                if (role == 1) std::this_thread::sleep_for(15ms);
                return role != 0 || ++chunks < 2;
            };
            auto connection = client();
            const auto result = connection.send(request);
            if (role == 0) {
                if (result.error() != httplib::Error::Canceled)
                    tally.problem("a hang-up was not a cancel: " +
                                  httplib::to_string(result.error()));
                ++tally.hung_up;
                continue;
            }
            if (!result || result->status != 200) {
                tally.problem("a request failed: " +
                              (result ? std::to_string(result->status) + " " + result->body
                                      : httplib::to_string(result.error())));
                continue;
            }
            std::string problem;
            const auto text = streamed_text(body, problem);
            if (!text) {
                tally.problem(problem);
            } else if (*text != expected[static_cast<size_t>(which % kPrompts)]) {
                tally.problem("answer to '" + prompt(which) + "' differs from its answer alone");
            } else {
                ++tally.whole;
            }
        }
    }

    void run_load(const std::vector<std::string>& expected) {
        Tally tally;
        std::vector<std::thread> clients;
        for (int c = 0; c < kClients; ++c) {
            clients.emplace_back([&, c] { run_client(c, expected, tally); });
        }
        for (auto& thread : clients) thread.join();
        for (const auto& problem : tally.problems) ADD_FAILURE() << problem;
        EXPECT_EQ(tally.hung_up.load(), kClients / 4 * kRequestsPerClient);
        EXPECT_EQ(tally.whole.load(), kClients * 3 / 4 * kRequestsPerClient);
    }

    bool rows_free_again() const {
        for (int i = 0; i < 3000; ++i) {
            const auto counters = m_scheduler->counters();
            if (counters.rows_busy == 0 && counters.queue_depth == 0) return true;
            std::this_thread::sleep_for(10ms);
        }
        return false;
    }

    std::unique_ptr<Engine> m_engine;
    std::unique_ptr<BatchScheduler> m_scheduler;
    std::unique_ptr<ApiServer> m_server;
};

TEST_F(ServerLoadTest, SixtyFourClientsWithHangUpsAndSlowReadersLeaveNothingBehind) {
    const auto expected = expected_answers();
    // The first round brings every buffer to its working size; the second must not grow them.
    run_load(expected);
    ASSERT_TRUE(rows_free_again());
    const size_t before = resident_bytes();
    const size_t kv_before = m_scheduler->counters().kv_bytes;
    run_load(expected);
    ASSERT_TRUE(rows_free_again());
    const size_t after = resident_bytes();
    std::printf("resident memory after the first round %.1f MiB, after the second %.1f MiB\n",
                before / 1048576.0, after / 1048576.0);
#if defined(__SANITIZE_ADDRESS__)
    // AddressSanitizer holds freed blocks in quarantine, so resident memory says nothing here;
    // its leak checker, run now, finds any block nothing points to any more.
    EXPECT_EQ(__lsan_do_recoverable_leak_check(), 0);
#else
    EXPECT_LE(static_cast<double>(after), 1.05 * static_cast<double>(before))
        << "resident memory grew from " << before << " to " << after << " bytes";
#endif
    EXPECT_EQ(m_scheduler->counters().kv_bytes, kv_before);
    const auto counters = m_scheduler->counters();
    EXPECT_EQ(counters.requests_refused, 0u);
    EXPECT_EQ(counters.requests_finished, counters.requests_total);
    // Still serving, and still right.
    EXPECT_EQ(expected_answers(), expected);
}

TEST_F(ServerLoadTest, MalformedRequestsEachGetA4xxAndTheServerKeepsServing) {
    const auto expected = expected_answers();
    const std::string huge(10 << 20, 'a');
    const std::vector<std::pair<std::string, std::string>> bodies{
        {"truncated JSON", R"({"prompt":"Once upon)"},
        {"a wrong type", R"({"prompt":"Once","max_tokens":"many"})"},
        {"a 10 MB body", R"({"prompt":")" + huge + R"("})"},
        {"invalid UTF-8", "{\"prompt\":\"Once \xff\xfe upon\"}"},
        {"a huge max_tokens", R"({"prompt":"Once","max_tokens":1e30})"},
        {"a negative max_tokens", R"({"prompt":"Once","max_tokens":-5})"},
        {"a negative temperature", R"({"prompt":"Once","temperature":-1})"},
        {"no prompt", R"({"max_tokens":4})"},
        {"not an object", R"([1,2,3])"},
        {"an empty body", ""},
    };
    for (const auto& [what, body] : bodies) {
        for (const char* path : {"/v1/completions", "/v1/chat/completions"}) {
            const auto result = client().Post(path, body, "application/json");
            ASSERT_TRUE(result) << what << ": " << httplib::to_string(result.error());
            EXPECT_GE(result->status, 400) << what << " at " << path;
            EXPECT_LT(result->status, 500) << what << " at " << path << ": " << result->body;
        }
    }
    EXPECT_EQ(expected_answers(), expected);
    EXPECT_EQ(m_scheduler->counters().rows_busy, 0);
}

}  // namespace
}  // namespace hearth::server
