// The window with a remote engine that goes wrong, over real sockets on 127.0.0.1: an address
// that cannot be used, an answer stopped or stalled, a slow stream, an untrusted certificate and
// a scripted server that fails on purpose. Each failure a user meets keeps what arrived and names
// its cause, and the window stays responsive throughout.
#include <gtest/gtest.h>

#include <httplib.h>

#include <QElapsedTimer>
#include <QLabel>
#include <QPushButton>
#include <QScopeGuard>
#include <QSignalSpy>
#include <QTest>
#include <QTimer>

#include <functional>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "app/core/history_json.h"
#include "tests/support/local_api_server.h"
#include "tests/support/main_window_remote_fixture.h"
#include "tests/support/scripted_http_server.h"
#include "tests/support/self_signed_certificate.h"
#include "ui/message_widget.h"

namespace hearth {
namespace {

using namespace std::chrono_literals;
using test::HttpScript;
using test::kServedModelId;
using test::MainWindowRemoteTest;
using test::ScriptedHttpServer;

// A connection whose address cannot be used is refused with the reason, and the remote engine
// chosen before it goes on answering.
TEST_F(MainWindowRemoteTest, AnAddressThatCannotBeUsedLeavesThePreviousChoice) {
    test::LocalApiServer server;
    use_short_answers();
    ASSERT_TRUE(choose_remote(server.url()));
    EXPECT_FALSE(choose_remote("ftp://gpu-box/v1"));
    EXPECT_TRUE(status().startsWith("Error: The address 'ftp://gpu-box/v1'"))
        << status().toStdString();
    ASSERT_TRUE(m_window.remote());
    EXPECT_EQ(m_window.remote()->connection.base_url.toStdString(), server.url());
    type_and_send("Once upon a time");
    ASSERT_TRUE(wait_finished());
    expect_remote(message(last_message()), server.url());
    EXPECT_TRUE(message(last_message()).finished);
}

// Stop mid-answer closes the HTTP request: the server frees the row it answered in, and the
// part that arrived stays, marked unfinished.
TEST_F(MainWindowRemoteTest, StopMidStreamCancelsTheRequestAndFreesTheServersRow) {
    test::LocalApiServer server;
    ASSERT_TRUE(choose_remote(server.url()));
    auto settings = m_window.current_conversation()->settings();
    settings.max_tokens = 200;
    m_window.apply_conversation_settings(settings);
    // Stop as the first chunk arrives, from the engine thread: the Stop button's own effect
    // (EngineController::stop), before the short answer could end by itself.
    const auto connection = QObject::connect(
        m_engine->worker(), &InferenceWorker::tokensReady, m_engine.get(),
        [this] { m_engine->stop(); }, Qt::DirectConnection);
    type_and_send("Once upon a time");
    ASSERT_TRUE(wait_finished());
    QObject::disconnect(connection);
    const auto& answer = message(last_message());
    EXPECT_FALSE(answer.finished);
    EXPECT_FALSE(answer.text.isEmpty());
    ASSERT_TRUE(answer.generation);
    EXPECT_EQ(answer.generation->stats.stop_reason, StopReason::Cancelled);
    EXPECT_TRUE(
        QTest::qWaitFor([&] { return server.scheduler().counters().rows_busy == 0; }, 10000));
    EXPECT_TRUE(child<QPushButton>("send")->isEnabled());
}

// Closing the window while a remote engine has gone silent mid-answer does not wait for the
// stall to time out: the request is closed within a second.
TEST_F(MainWindowRemoteTest, QuittingDuringAStalledRemoteAnswerTakesUnderASecond) {
    ScriptedHttpServer server(test::stream_script({test::content_event("Once")}, false, 5000ms));
    ASSERT_TRUE(choose_remote(server.url()));
    QSignalSpy chunks(m_engine->worker(), &InferenceWorker::tokensReady);
    type_and_send("Tell me");
    ASSERT_TRUE(QTest::qWaitFor([&] { return !chunks.isEmpty(); }, 10000));
    QElapsedTimer clock;
    clock.start();
    m_engine.reset();  // what closing the window does
    EXPECT_LT(clock.elapsed(), 1000);
}

// The GUI thread never waits on the network: while a remote answer streams, and while a
// connection is chosen, a 5 ms timer keeps firing within the local streaming's budget.
TEST_F(MainWindowRemoteTest, StreamingARemoteAnswerKeepsTheWindowResponsive) {
    std::vector<std::string> events;
    for (int i = 0; i < 100; ++i) events.push_back(test::content_event("word "));
    events.push_back("data: [DONE]\n\n");
    HttpScript script = test::stream_script(events);
    for (auto& step : script.steps) step.pause_after = 10ms;
    ScriptedHttpServer server(script);
    QElapsedTimer clock;
    qint64 last = 0, longest = 0;
    QTimer ticker;
    ticker.setInterval(5);
    QObject::connect(&ticker, &QTimer::timeout, [&] {
        const qint64 now = clock.elapsed();
        longest = std::max(longest, now - last);
        last = now;
    });
    clock.start();
    ticker.start();
    ASSERT_TRUE(choose_remote(server.url()));
    type_and_send("Tell me");
    ASSERT_TRUE(wait_finished());
    ticker.stop();
    EXPECT_EQ(last_answer(), QString("word ").repeated(100));
    // The window flushes a streaming answer once per frame (~16 ms); a network call on the GUI
    // thread would stall it for the whole answer (over a second here). The bound leaves room
    // for a loaded machine's scheduling.
    EXPECT_LT(longest, 300) << "the event loop stalled for " << longest << " ms";
    RecordProperty("longest_stall_ms", static_cast<int>(longest));
}

// A server with a self-signed certificate is refused, the status naming the fix, until its
// connection trusts that certificate; then it answers.
TEST_F(MainWindowRemoteTest, ASelfSignedServerAnswersOnceItsConnectionTrustsTheCertificate) {
    const test::CertificateFiles files = test::write_self_signed_certificate(m_directory.path());
    httplib::SSLServer server(files.certificate.c_str(), files.key.c_str());
    ASSERT_TRUE(server.is_valid());
    server.Post("/v1/chat/completions", [](const httplib::Request&, httplib::Response& response) {
        response.set_content(test::content_event("Over TLS.") + "data: [DONE]\n\n",
                             "text/event-stream");
    });
    const int port = server.bind_to_any_port("127.0.0.1");
    std::jthread serving([&] { server.listen_after_bind(); });
    const auto stop = qScopeGuard([&] { server.stop(); });
    const std::string url = "https://127.0.0.1:" + std::to_string(port) + "/v1";

    ASSERT_TRUE(choose_remote(url));
    type_and_send("Tell me");
    ASSERT_TRUE(wait_finished());
    EXPECT_TRUE(status().contains("The secure connection to"));
    EXPECT_TRUE(status().contains("self-signed certificate, trust it for this connection"))
        << status().toStdString();
    EXPECT_FALSE(message(last_message()).finished);

    ASSERT_TRUE(
        choose_remote(url, kServedModelId, QString::fromStdString(files.certificate.string())));
    type_and_send("Again");
    ASSERT_TRUE(wait_finished());
    EXPECT_EQ(last_answer(), "Over TLS.");
    EXPECT_TRUE(message(last_message()).finished) << status().toStdString();
}

// What the user meets when a remote engine fails, each produced on purpose.
struct Failure {
    const char* name;
    std::function<HttpScript()> script;  // none: nothing listens
    std::string cause;                   // words the status line must hold
    QString partial;                     // the answer that arrived before it
    int idle_timeout_ms = 5000;
    std::string address = {};  // asked instead of the server's (or a closed port's)
};

std::vector<Failure> failures() {
    using test::content_event;
    using test::json_response;
    using test::stream_script;
    return {
        {"refused", nullptr, "Could not connect", ""},
        {"401", [] { return HttpScript{{{json_response(401, R"({"error":"bad key"})")}}}; },
         "401: the API key is missing or wrong", ""},
        {"403",
         [] { return HttpScript{{{json_response(403, R"({"error":"not for this key"})")}}}; },
         "403: this key may not use it", ""},
        // .invalid never resolves (RFC 6761): no network is asked.
        {"DNS", nullptr, "Could not find the host 'hearth-test.invalid'", "", 5000,
         "http://hearth-test.invalid:8000/v1"},
        {"404 model",
         [] {
             return HttpScript{{{json_response(404, R"({"error":{"message":"no such model"}})")}}};
         },
         "it has no model 'stories260K'", ""},
        {"429",
         [] {
             return HttpScript{
                 {{json_response(429, R"({"error":"slow down"})", {"Retry-After: 7"})}}};
         },
         "too many requests; retry after 7 s", ""},
        {"500", [] { return HttpScript{{{json_response(500, R"({"error":"it broke"})")}}}; },
         "The server answered 500", ""},
        {"cut",
         [] {
             return stream_script({content_event("Once"), content_event(" upon")}, true);
         },
         "before the answer", "Once upon"},
        {"stall", [] { return stream_script({content_event("Once")}, false, 3000ms); },
         "nothing arrived", "Once", 300},
        {"malformed",
         [] {
             return stream_script({content_event("Once"), "data: {oops\n\n"});
         },
         "not JSON", "Once"},
        // In one read with the text before it, which then reaches the window only as the part.
        {"malformed in the same read",
         [] { return stream_script({content_event("Once") + "data: {oops\n\n"}); }, "not JSON",
         "Once"},
    };
}

// Each failure: the status names the cause, the part that arrived stays (in the window and
// the history) marked unfinished with the remote's record, the conversation before it is
// untouched, and the window answers the next message.
TEST_F(MainWindowRemoteTest, EachRemoteFailureKeepsThePartAndNamesTheCause) {
    core::HistoryStore history(database());
    m_window.set_history(&history);
    for (const Failure& failure : failures()) {
        SCOPED_TRACE(failure.name);
        std::optional<ScriptedHttpServer> server;
        std::string url = !failure.address.empty()
                              ? failure.address
                              : "http://127.0.0.1:" + std::to_string(test::closed_port()) + "/v1";
        if (failure.script) {
            server.emplace(failure.script());
            url = server->url();
        }
        QMetaObject::invokeMethod(m_engine->worker(), "setRemoteIdleTimeout", Qt::QueuedConnection,
                                  Q_ARG(int, failure.idle_timeout_ms));
        m_window.newConversation();
        use_test_settings();
        ASSERT_TRUE(choose_remote(url));
        type_and_send("Tell me a story");
        ASSERT_TRUE(wait_finished());
        EXPECT_TRUE(status().contains(QString::fromStdString(failure.cause)))
            << status().toStdString();
        const int answer = last_message();
        EXPECT_EQ(message(answer).text, failure.partial);
        EXPECT_FALSE(message(answer).finished);
        expect_remote(message(answer), url);
        EXPECT_EQ(widget_for(answer)->view()->text(), failure.partial);
        EXPECT_EQ(child<QLabel>("messageNote", widget_for(answer))->text(),
                  "(stopped before the end)");
        // Usable: the next message is asked (and fails the same way: the script repeats).
        type_and_send("Again");
        ASSERT_TRUE(wait_finished());
        auto* conversation = m_window.current_conversation();
        ASSERT_EQ(conversation->messages().size(), 4u);
        EXPECT_EQ(conversation->find(conversation->thread().front())->text, "Tell me a story");
        const auto stored = history.load(conversation->id());
        ASSERT_TRUE(stored);
        EXPECT_EQ(core::conversation_to_json(*stored), core::conversation_to_json(*conversation));
    }
}

}  // namespace
}  // namespace hearth
