// The remote engine's client over real sockets on 127.0.0.1: against hearth-server running the
// smallest shared model (answers compared with the engine's own), and against a scripted server
// that produces every failure a user meets on purpose.
#include "engine/remote/remote_client.h"

#include <gtest/gtest.h>

#include <httplib.h>

#include <random>

#include "engine/remote/remote_error.h"
#include "tests/engine/remote/server_streams.h"
#include "tests/support/local_api_server.h"
#include "tests/support/scripted_http_server.h"
#include "tests/support/self_signed_certificate.h"
#include "tests/support/temp_files.h"

namespace hearth::remote {
namespace {

using namespace std::chrono_literals;
using test::closed_port;
using test::content_event;
using test::HttpScript;
using test::ScriptedHttpServer;
using test::stream_script;

using test::cpu_engine;
using test::story_request;
using HearthServer = test::LocalApiServer;

RemoteError failure_of(const std::function<void()>& call) {
    try {
        call();
    } catch (const RemoteError& error) {
        return error;
    }
    ADD_FAILURE() << "no RemoteError";
    return {RemoteFailure::BadAddress, "none"};
}

void expect_failure(const RemoteError& error, RemoteFailure failure, const std::string& named) {
    EXPECT_EQ(error.failure(), failure) << error.what();
    EXPECT_NE(std::string(error.what()).find(named), std::string::npos) << error.what();
}

// ---- against hearth-server ----

TEST(RemoteClientHearth, AStreamedAnswerIsTheEnginesOwnGreedyAnswer) {
    HearthServer server;
    const GenerationResult local = cpu_engine()->chat(story_request(24), {});
    RemoteClient client({.base_url = server.url()});
    EXPECT_EQ(client.models(), std::vector<std::string>{"stories260K"});
    std::string streamed;
    int chunks = 0;
    const RemoteAnswer answer =
        client.chat("stories260K", story_request(24), {.on_chunk = [&](const TokenChunk& chunk) {
                        streamed += chunk.text;
                        ++chunks;
                        return true;
                    }});
    EXPECT_EQ(answer.result.text, local.text);
    EXPECT_EQ(streamed, local.text);
    EXPECT_GT(chunks, 0);
    EXPECT_EQ(answer.finish_reason, "length");
    const GenerationStats& stats = answer.result.stats;
    EXPECT_EQ(stats.stop_reason, StopReason::MaxTokens);
    EXPECT_EQ(stats.generated_tokens, 24);  // the server's usage
    EXPECT_EQ(stats.prompt_tokens, local.stats.prompt_tokens);
    EXPECT_FALSE(stats.token_times_ns.empty());
    EXPECT_GT(stats.time_to_first_token_ns, 0);
}

TEST(RemoteClientHearth, AWholeAnswerEqualsTheStreamedOne) {
    HearthServer server;
    RemoteClient client({.base_url = server.url() + "/"});
    const RemoteAnswer streamed = client.chat("stories260K", story_request(16));
    const RemoteAnswer whole = client.chat("stories260K", story_request(16), {}, nullptr, false);
    EXPECT_EQ(whole.result.text, streamed.result.text);
    EXPECT_EQ(whole.result.stats.generated_tokens, 16);
    // The second request's prompt was the first's: the server's cache reused it.
    EXPECT_GT(whole.result.stats.cached_tokens, 0);
}

TEST(RemoteClientHearth, StopMidStreamKeepsThePartAndFreesTheServersRow) {
    HearthServer server;
    RemoteClient client({.base_url = server.url()});
    std::atomic<bool> cancel{false};
    const RemoteAnswer answer = client.chat("stories260K", story_request(200),
                                            {.on_chunk =
                                                 [&](const TokenChunk&) {
                                                     cancel = true;  // as the Stop button would
                                                     return true;
                                                 }},
                                            &cancel);
    EXPECT_EQ(answer.result.stats.stop_reason, StopReason::Cancelled);
    EXPECT_FALSE(answer.result.text.empty());
    bool freed = false;
    for (int i = 0; i < 3000 && !freed; ++i) {
        freed = server.scheduler().counters().rows_busy == 0;
        std::this_thread::sleep_for(10ms);
    }
    EXPECT_TRUE(freed);
}

TEST(RemoteClientHearth, AWrongKeyAndAnUnknownModelAreNamed) {
    HearthServer server("right-key");
    RemoteClient wrong({.base_url = server.url(), .api_key = "wrong-key"});
    expect_failure(failure_of([&] { wrong.chat("stories260K", story_request(4)); }),
                   RemoteFailure::Unauthorized, "401");
    expect_failure(failure_of([&] { wrong.models(); }), RemoteFailure::Unauthorized, "API key");
    RemoteClient right({.base_url = server.url(), .api_key = "right-key"});
    expect_failure(failure_of([&] { right.chat("llama-70b", story_request(4)); }),
                   RemoteFailure::ModelNotFound, "llama-70b");
    EXPECT_EQ(right.chat("stories260K", story_request(4)).result.stats.generated_tokens, 4);
}

// ---- failures produced on purpose ----

RemoteError chat_failure(const std::string& url, std::chrono::milliseconds idle = 5s) {
    RemoteClient client({.base_url = url, .idle_timeout = idle});
    return failure_of([&] { client.chat("m", story_request(8)); });
}

TEST(RemoteClientFaults, NoServerAndNoHost) {
    expect_failure(chat_failure("http://127.0.0.1:" + std::to_string(closed_port())),
                   RemoteFailure::Refused, "Could not connect to http://127.0.0.1:");
    // .invalid never resolves (RFC 6761).
    expect_failure(chat_failure("http://hearth-test.invalid:8000/v1"), RemoteFailure::HostNotFound,
                   "hearth-test.invalid");
}

TEST(RemoteClientFaults, TlsToAServerThatSpeaksPlainHttp) {
    ScriptedHttpServer server({{{test::json_response(200, "{}")}}});
    const std::string url = "https://127.0.0.1:" + std::to_string(server.port());
    expect_failure(chat_failure(url), RemoteFailure::Tls, "secure connection");
}

// A TLS server with a self-signed certificate: refused by the system's CA store, used once the
// user trusts that certificate for this connection.
TEST(RemoteClientFaults, ASelfSignedServerIsRefusedUntilTrustedForThisConnection) {
    const test::TempDirectory folder;
    const test::CertificateFiles files = test::write_self_signed_certificate(folder.path());
    httplib::SSLServer server(files.certificate.c_str(), files.key.c_str());
    ASSERT_TRUE(server.is_valid());
    server.Post("/v1/chat/completions", [](const httplib::Request&, httplib::Response& response) {
        response.set_content(R"({"choices":[{"index":0,"message":{"role":"assistant",)"
                             R"("content":"Over TLS."},"finish_reason":"stop"}]})",
                             "application/json");
    });
    const int port = server.bind_to_any_port("127.0.0.1");
    std::jthread serving([&] { server.listen_after_bind(); });
    const std::string url = "https://127.0.0.1:" + std::to_string(port) + "/v1";

    expect_failure(chat_failure(url), RemoteFailure::Tls, "self-signed");
    RemoteClient trusting({.base_url = url, .trusted_certificate = files.certificate});
    EXPECT_EQ(trusting.chat("m", story_request(4), {}, nullptr, false).result.text, "Over TLS.");
    server.stop();
}

TEST(RemoteClientFaults, StatusesAreNamedWithTheServersMessage) {
    const struct {
        int status;
        RemoteFailure failure;
        const char* named;
    } cases[] = {
        {401, RemoteFailure::Unauthorized, "API key"},
        {403, RemoteFailure::Forbidden, "403: this key may not use it"},
        {404, RemoteFailure::ModelNotFound, "no model 'm'"},
        {400, RemoteFailure::Rejected, "400"},
        {500, RemoteFailure::ServerError, "500"},
        {502, RemoteFailure::ServerError, "502"},
    };
    for (const auto& each : cases) {
        ScriptedHttpServer server({{{test::json_response(
            each.status, R"({"error":{"message":"said by the server"}})")}}});
        const RemoteError error = chat_failure(server.url());
        expect_failure(error, each.failure, each.named);
        expect_failure(error, each.failure, "said by the server");
        EXPECT_EQ(error.status(), each.status);
    }
}

TEST(RemoteClientFaults, TooManyRequestsSaysWhenToRetry) {
    ScriptedHttpServer server(
        {{{test::json_response(429, R"({"error":"slow down"})", {"Retry-After: 7"})}}});
    const RemoteError error = chat_failure(server.url());
    expect_failure(error, RemoteFailure::RateLimited, "retry after 7 s");
    ASSERT_TRUE(error.retry_after);
    EXPECT_EQ(*error.retry_after, 7s);
}

TEST(RemoteClientFaults, AStreamCutAfterTwoEventsKeepsThem) {
    for (const bool abrupt : {false, true}) {
        ScriptedHttpServer server(
            stream_script({content_event("Once"), content_event(" upon")}, abrupt));
        const RemoteError error = chat_failure(server.url());
        expect_failure(error, RemoteFailure::StreamCut, "before the answer");
        EXPECT_EQ(error.partial.text, "Once upon");
        EXPECT_EQ(error.partial.stats.token_times_ns.size(), 2u);
    }
}

TEST(RemoteClientFaults, AStalledStreamTimesOutKeepingWhatArrived) {
    ScriptedHttpServer server(stream_script({content_event("Once")}, false, 3000ms));
    const auto start = std::chrono::steady_clock::now();
    const RemoteError error = chat_failure(server.url(), 300ms);
    expect_failure(error, RemoteFailure::Timeout, "nothing arrived");
    EXPECT_EQ(error.partial.text, "Once");
    EXPECT_LT(std::chrono::steady_clock::now() - start, 2500ms);
}

TEST(RemoteClientFaults, KeepAlivesAloneTimeOut) {
    std::vector<std::string> pings(40, ": ping\n\n");
    HttpScript script = stream_script({content_event("Once")});
    for (const std::string& ping : pings) script.steps.push_back({ping, 50ms});
    ScriptedHttpServer server(script);
    const RemoteError error = chat_failure(server.url(), 400ms);
    expect_failure(error, RemoteFailure::Timeout, "keep-alives");
    EXPECT_EQ(error.partial.text, "Once");
}

TEST(RemoteClientFaults, AMalformedEventAndAnErrorEventKeepThePart) {
    ScriptedHttpServer malformed(stream_script({content_event("Once"), "data: {oops\n\n"}));
    const RemoteError bad = chat_failure(malformed.url());
    expect_failure(bad, RemoteFailure::MalformedStream, "not JSON");
    EXPECT_EQ(bad.partial.text, "Once");

    ScriptedHttpServer failing(stream_script(
        {content_event("Once"), R"(data: {"error":{"message":"out of memory","code":500}})"
                                "\n\n"}));
    const RemoteError error = chat_failure(failing.url());
    expect_failure(error, RemoteFailure::ServerError, "out of memory");
    EXPECT_EQ(error.partial.text, "Once");
}

TEST(RemoteClientFaults, RealServersStreamsOverTcpAtRandomCuts) {
    std::mt19937 random(7);
    for (const test::ServerStream& stream : test::server_streams()) {
        SCOPED_TRACE(stream.server);
        for (int trial = 0; trial < 3; ++trial) {
            HttpScript script{{{test::event_stream_head(), 1ms}}};
            for (size_t start = 0; start < stream.bytes.size();) {
                const size_t size = std::uniform_int_distribution<size_t>(1, 48)(random);
                script.steps.push_back({stream.bytes.substr(start, size), 1ms});
                start += size;
            }
            ScriptedHttpServer server(script);
            RemoteClient client({.base_url = server.url()});
            std::string streamed;
            std::string streamed_reasoning;
            const RemoteAnswer answer =
                client.chat("m", story_request(8), {.on_chunk = [&](const TokenChunk& chunk) {
                                streamed += chunk.text;
                                streamed_reasoning += chunk.reasoning;
                                return true;
                            }});
            EXPECT_EQ(answer.result.text, stream.content);
            EXPECT_EQ(streamed, stream.content);
            EXPECT_EQ(answer.result.reasoning, stream.reasoning);
            EXPECT_EQ(streamed_reasoning, stream.reasoning);  // apart from the answer, as it came
            EXPECT_EQ(answer.finish_reason, stream.finish_reason);
            EXPECT_EQ(answer.result.stats.generated_tokens, stream.completion_tokens);
            EXPECT_EQ(answer.result.stats.prompt_tokens, stream.prompt_tokens);
            EXPECT_EQ(answer.result.stats.cached_tokens, stream.cached_tokens);
            // The request carried the conversation and asked for a stream.
            const std::string request = server.last_request();
            EXPECT_NE(request.find("POST /v1/chat/completions"), std::string::npos);
            EXPECT_NE(request.find(R"("content":"Once upon a time")"), std::string::npos);
            EXPECT_NE(request.find(R"("stream":true)"), std::string::npos);
        }
    }
}

}  // namespace
}  // namespace hearth::remote
