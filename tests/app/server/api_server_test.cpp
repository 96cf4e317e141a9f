// The HTTP server end to end: real sockets on 127.0.0.1, httplib's client, the batch scheduler
// running the smallest shared model on the CPU. Answers are compared with the engine's own.
#include "app/server/api_server.h"

#include <gtest/gtest.h>
#include <httplib.h>

#include <future>
#include <mutex>
#include <sstream>
#include <thread>

#include "engine/runtime/engine.h"
#include "engine/text/jinja/json.h"
#include "tests/support/local_api_server.h"
#include "tests/support/shared_data.h"
#include "tests/support/temp_files.h"
#include "tests/support/templated_model.h"

namespace hearth::server {
namespace {

using namespace std::chrono_literals;
using jinja::Value;

constexpr const char* kModel = "stories260K.gguf";
constexpr int kContext = 256;

using test::cpu_engine;

// A member of a parsed JSON object, by a dotted path ("usage.prompt_tokens"); fails the test
// (and throws) when it is missing.
const Value& at(const Value& value, const std::string& path) {
    const Value* current = &value;
    std::istringstream keys(path);
    std::string key;
    while (std::getline(keys, key, '.')) {
        const Value* found = current->is_object() ? current->as_object().find(key) : nullptr;
        if (!found) throw std::runtime_error("no " + path + " in the response");
        current = found;
    }
    return *current;
}

// The SSE events of a streamed body: the payload of every "data: " line, in order; fails when
// the body is framed any other way.
std::vector<std::string> sse_payloads(const std::string& body) {
    std::vector<std::string> payloads;
    size_t start = 0;
    while (start < body.size()) {
        const size_t end = body.find("\n\n", start);
        EXPECT_NE(end, std::string::npos) << "an event not ended by a blank line";
        if (end == std::string::npos) break;
        const std::string event = body.substr(start, end - start);
        EXPECT_EQ(event.rfind("data: ", 0), 0u) << event;
        EXPECT_EQ(event.find('\n'), std::string::npos) << event;
        payloads.push_back(event.substr(6));
        start = end + 2;
    }
    return payloads;
}

std::string chat_body(const std::string& fields) {
    return R"({"model":"stories260K","messages":[{"role":"system","content":"You tell stories."},)"
           R"({"role":"user","content":"Once upon a time"}])" +
           (fields.empty() ? std::string() : "," + fields) + "}";
}

ChatRequest chat_request(int max_tokens, SamplerSettings sampler) {
    return {.messages = {{.role = "system", .content = "You tell stories."},
                         {.role = "user", .content = "Once upon a time"}},
            .context_length = kContext,
            .max_tokens = max_tokens,
            .sampler = sampler,
            .fresh_seed = false,
            .overflow = OverflowPolicy::Stop};
}

// Whether `condition` holds within a bounded wait (30 s: generous for a sanitizer build).
bool eventually(const std::function<bool()>& condition) {
    for (int i = 0; i < 3000; ++i) {
        if (condition()) return true;
        std::this_thread::sleep_for(10ms);
    }
    return condition();
}

class ApiServerTest : public testing::Test {
protected:
    void start(SchedulerOptions scheduling = {.rows = 2, .context_length = kContext},
               ApiServerOptions options = {}) {
        m_engine = cpu_engine(m_model);
        m_scheduler = std::make_unique<BatchScheduler>(*m_engine, scheduling);
        options.host = "127.0.0.1";
        options.port = 0;
        m_server = std::make_unique<ApiServer>(*m_scheduler, std::move(options));
        m_server->start();
    }

    void TearDown() override {
        m_server.reset();
        m_scheduler.reset();
        m_engine.reset();
    }

    httplib::Client client() const {
        httplib::Client client("127.0.0.1", m_server->port());
        client.set_read_timeout(120, 0);
        return client;
    }

    httplib::Result post(const std::string& path, const std::string& body,
                         const httplib::Headers& headers = {}) const {
        return client().Post(path.c_str(), headers, body, "application/json");
    }

    // Waits, a bounded while, for every row to be free again.
    bool rows_free_again() const {
        return eventually([&] { return m_scheduler->counters().rows_busy == 0; });
    }

    std::filesystem::path m_model = test::model_path(kModel);
    std::unique_ptr<Engine> m_engine;
    std::unique_ptr<BatchScheduler> m_scheduler;
    std::unique_ptr<ApiServer> m_server;
};

// Checks an error response; `code_or_param` is what its code or param must say ("" for neither).
void expect_error(const httplib::Result& result, int status, const std::string& code_or_param) {
    ASSERT_TRUE(result) << httplib::to_string(result.error());
    EXPECT_EQ(result->status, status) << result->body;
    EXPECT_EQ(result->get_header_value("Content-Type"), "application/json");
    const Value body = jinja::parse_json(result->body);
    ASSERT_EQ(body.as_object().size(), 1u) << result->body;  // {"error": ...} and nothing else
    const Value& error = at(body, "error");
    EXPECT_FALSE(at(error, "message").as_string().empty());
    EXPECT_TRUE(at(error, "type").is_string());
    const Value& code = at(error, "code");
    const Value& param = at(error, "param");
    if (code_or_param.empty()) return;
    const bool named = (code.is_string() && code.as_string() == code_or_param) ||
                       (param.is_string() && param.as_string() == code_or_param);
    EXPECT_TRUE(named) << result->body;
}

TEST_F(ApiServerTest, ANonStreamedAnswerIsTheEnginesGreedyAnswer) {
    start();
    const auto expected = cpu_engine()->chat(chat_request(24, {.temperature = 0.0f}), {});
    const auto result =
        post("/v1/chat/completions", chat_body(R"("max_tokens":24,"temperature":0)"));
    ASSERT_TRUE(result);
    ASSERT_EQ(result->status, 200) << result->body;
    EXPECT_EQ(result->get_header_value("Content-Type"), "application/json");
    const Value body = jinja::parse_json(result->body);
    EXPECT_EQ(at(body, "object").as_string(), "chat.completion");
    EXPECT_EQ(at(body, "model").as_string(), "stories260K");
    EXPECT_EQ(at(body, "id").as_string().rfind("chatcmpl-", 0), 0u);
    EXPECT_GT(at(body, "created").as_int(), 1'600'000'000);
    const Value& choice = at(body, "choices").as_array().at(0);
    EXPECT_EQ(at(choice, "message.role").as_string(), "assistant");
    EXPECT_EQ(at(choice, "message.content").as_string(), expected.text);
    EXPECT_FALSE(expected.text.empty());
    EXPECT_EQ(at(choice, "finish_reason").as_string(), "length");
    EXPECT_EQ(at(body, "usage.prompt_tokens").as_int(), expected.stats.prompt_tokens);
    EXPECT_EQ(at(body, "usage.completion_tokens").as_int(), 24);
    EXPECT_EQ(at(body, "usage.total_tokens").as_int(), expected.stats.prompt_tokens + 24);
    EXPECT_TRUE(at(body, "usage.prompt_tokens_details.cached_tokens").is_int());
}

TEST_F(ApiServerTest, ASeededSampledAnswerIsTheEnginesAndRepeats) {
    start();
    const SamplerSettings sampler{.temperature = 0.9f, .seed = 1234};
    const auto expected = cpu_engine()->chat(chat_request(32, sampler), {});
    const std::string body = chat_body(R"("max_tokens":32,"temperature":0.9,"seed":1234)");
    for (int i = 0; i < 2; ++i) {
        const auto result = post("/v1/chat/completions", body);
        ASSERT_TRUE(result);
        ASSERT_EQ(result->status, 200) << result->body;
        EXPECT_EQ(
            at(at(jinja::parse_json(result->body), "choices").as_array().at(0), "message.content")
                .as_string(),
            expected.text);
    }
}

TEST_F(ApiServerTest, AStreamedAnswerIsFramedAsOpenAIFramesIt) {
    start();
    const auto expected = cpu_engine()->chat(chat_request(16, {.temperature = 0.0f}), {});
    const auto result =
        post("/v1/chat/completions", chat_body(R"("max_tokens":16,"temperature":0,"stream":true,)"
                                               R"("stream_options":{"include_usage":true})"));
    ASSERT_TRUE(result);
    ASSERT_EQ(result->status, 200) << result->body;
    EXPECT_EQ(result->get_header_value("Content-Type"), "text/event-stream");
    const auto payloads = sse_payloads(result->body);
    ASSERT_GE(payloads.size(), 4u);
    EXPECT_EQ(payloads.back(), "[DONE]");
    const Value first = jinja::parse_json(payloads.front());
    EXPECT_EQ(at(first, "object").as_string(), "chat.completion.chunk");
    EXPECT_EQ(at(at(first, "choices").as_array().at(0), "delta.role").as_string(), "assistant");
    std::string text;
    std::string id = at(first, "id").as_string();
    for (size_t i = 1; i + 3 < payloads.size(); ++i) {
        const Value chunk = jinja::parse_json(payloads[i]);
        EXPECT_EQ(at(chunk, "id").as_string(), id);
        const Value& choice = at(chunk, "choices").as_array().at(0);
        EXPECT_TRUE(at(choice, "finish_reason").is_none());
        EXPECT_TRUE(at(chunk, "usage").is_none());
        text += at(choice, "delta.content").as_string();
    }
    EXPECT_EQ(text, expected.text);
    const Value last = jinja::parse_json(payloads[payloads.size() - 3]);
    EXPECT_EQ(at(at(last, "choices").as_array().at(0), "finish_reason").as_string(), "length");
    const Value usage = jinja::parse_json(payloads[payloads.size() - 2]);
    EXPECT_TRUE(at(usage, "choices").as_array().empty());
    EXPECT_EQ(at(usage, "usage.completion_tokens").as_int(), 16);
    EXPECT_EQ(at(usage, "usage.prompt_tokens").as_int(), expected.stats.prompt_tokens);
}

// A reasoning model (here stories260K behind a DeepSeek-R1 distill's template, whose prompt
// opens the reasoning block) answers with its reasoning in reasoning_content, streamed and
// not, and content holds the answer alone; /v1/completions stays raw text.
TEST_F(ApiServerTest, ReasoningGoesToReasoningContent) {
    const test::TempDirectory directory;
    m_model =
        test::model_with_template(directory, kModel, test::fixture_template("deepseek-r1-distill"));
    start();
    const auto expected = cpu_engine(m_model)->chat(chat_request(16, {.temperature = 0.0f}), {});
    ASSERT_FALSE(expected.reasoning.empty());
    ASSERT_EQ(expected.stats.reasoning_tokens, 16);
    const auto whole =
        post("/v1/chat/completions", chat_body(R"("max_tokens":16,"temperature":0)"));
    ASSERT_TRUE(whole);
    ASSERT_EQ(whole->status, 200) << whole->body;
    const Value body = jinja::parse_json(whole->body);
    const Value& message = at(at(body, "choices").as_array().at(0), "message");
    EXPECT_EQ(at(message, "reasoning_content").as_string(), expected.reasoning);
    EXPECT_EQ(at(message, "content").as_string(), "");

    const auto streamed =
        post("/v1/chat/completions", chat_body(R"("max_tokens":16,"temperature":0,"stream":true)"));
    ASSERT_TRUE(streamed);
    const auto payloads = sse_payloads(streamed->body);
    std::string reasoning;
    std::string content;
    for (size_t i = 0; i + 1 < payloads.size(); ++i) {
        const Value chunk = jinja::parse_json(payloads[i]);
        const Value& delta = at(at(chunk, "choices").as_array().at(0), "delta");
        if (const Value* part = delta.as_object().find("reasoning_content"))
            reasoning += part->as_string();
        if (const Value* part = delta.as_object().find("content")) content += part->as_string();
    }
    EXPECT_EQ(reasoning, expected.reasoning);
    EXPECT_EQ(content, "");

    const auto raw =
        post("/v1/completions", R"({"prompt":"Once upon a time","max_tokens":12,"temperature":0})");
    ASSERT_TRUE(raw);
    const Value raw_body = jinja::parse_json(raw->body);
    const Value& choice = at(raw_body, "choices").as_array().at(0);
    EXPECT_FALSE(at(choice, "text").as_string().empty());
    EXPECT_EQ(choice.as_object().find("reasoning_content"), nullptr);
}

TEST_F(ApiServerTest, CompletionsContinueTheTextAsTheEngineDoes) {
    start();
    auto engine = cpu_engine();
    const ChatRequest options{.max_tokens = 12, .sampler = {.temperature = 0.0f}};
    const auto expected = engine->generate(
        0, kContext, engine->text_generation_request("Once upon a time", options, {}));
    const auto result =
        post("/v1/completions", R"({"prompt":"Once upon a time","max_tokens":12,"temperature":0})");
    ASSERT_TRUE(result);
    ASSERT_EQ(result->status, 200) << result->body;
    const Value body = jinja::parse_json(result->body);
    EXPECT_EQ(at(body, "object").as_string(), "text_completion");
    EXPECT_EQ(at(at(body, "choices").as_array().at(0), "text").as_string(), expected.text);

    const auto streamed =
        post("/v1/completions",
             R"({"prompt":"Once upon a time","max_tokens":12,"temperature":0,"stream":true})");
    ASSERT_TRUE(streamed);
    const auto payloads = sse_payloads(streamed->body);
    ASSERT_GE(payloads.size(), 2u);
    EXPECT_EQ(payloads.back(), "[DONE]");
    std::string text;
    for (size_t i = 0; i + 1 < payloads.size(); ++i) {
        text +=
            at(at(jinja::parse_json(payloads[i]), "choices").as_array().at(0), "text").as_string();
    }
    EXPECT_EQ(text, expected.text);
}

TEST_F(ApiServerTest, AJsonSchemaAnswerFollowsTheSchema) {
    start();
    const auto result =
        post("/v1/chat/completions",
             chat_body(R"("temperature":0,"response_format":{"type":"json_schema","json_schema":)"
                       R"({"name":"pet","schema":{"type":"object","properties":{"mood":)"
                       R"({"enum":["happy","sad"]},"age":{"type":"integer"}},)"
                       R"("required":["mood","age"]}}})"));
    ASSERT_TRUE(result);
    ASSERT_EQ(result->status, 200) << result->body;
    const Value body = jinja::parse_json(result->body);
    const Value& choice = at(body, "choices").as_array().at(0);
    EXPECT_EQ(at(choice, "finish_reason").as_string(), "stop");
    const Value answer = jinja::parse_json(at(choice, "message.content").as_string());
    const std::string mood = at(answer, "mood").as_string();
    EXPECT_TRUE(mood == "happy" || mood == "sad") << mood;
    EXPECT_TRUE(at(answer, "age").is_int());
}

TEST_F(ApiServerTest, HealthModelsAndMetrics) {
    start();
    const auto health = client().Get("/health");
    ASSERT_TRUE(health);
    EXPECT_EQ(health->status, 200);
    EXPECT_EQ(at(jinja::parse_json(health->body), "status").as_string(), "ok");

    const auto models = client().Get("/v1/models");
    ASSERT_TRUE(models);
    const Value list = jinja::parse_json(models->body);
    EXPECT_EQ(at(at(list, "data").as_array().at(0), "id").as_string(), "stories260K");
    const auto model = client().Get("/v1/models/stories260K.gguf");
    ASSERT_TRUE(model);
    EXPECT_EQ(at(jinja::parse_json(model->body), "id").as_string(), "stories260K");
    expect_error(client().Get("/v1/models/gpt-4o"), 404, "model_not_found");

    ASSERT_EQ(post("/v1/completions", R"({"prompt":"Hi","max_tokens":3,"temperature":0})")->status,
              200);
    const auto metrics = client().Get("/metrics");
    ASSERT_TRUE(metrics);
    EXPECT_EQ(metrics->status, 200);
    EXPECT_EQ(metrics->get_header_value("Content-Type").rfind("text/plain", 0), 0u);
    std::map<std::string, double> samples;
    std::istringstream lines(metrics->body);
    std::string line;
    while (std::getline(lines, line)) {
        if (line.empty() || line[0] == '#') continue;
        const auto space = line.find(' ');
        ASSERT_NE(space, std::string::npos) << line;
        samples[line.substr(0, space)] = std::stod(line.substr(space + 1));
    }
    EXPECT_EQ(samples.at("hearth_rows"), 2);
    EXPECT_GE(samples.at("hearth_requests_total"), 1);
    EXPECT_GE(samples.at("hearth_generated_tokens_total"), 3);
    EXPECT_GT(samples.at("hearth_kv_cache_bytes"), 0);
    for (const char* name :
         {"hearth_queue_depth", "hearth_rows_busy", "hearth_tokens_per_second"}) {
        EXPECT_TRUE(samples.count(name)) << name;
    }
}

TEST_F(ApiServerTest, BadRequestsGetTheirStatusInOpenAIsShape) {
    start();
    const auto malformed = post("/v1/chat/completions", R"({"messages": [)");
    expect_error(malformed, 400, "");
    EXPECT_NE(malformed->body.find("not valid JSON"), std::string::npos);
    expect_error(post("/v1/chat/completions", chat_body(R"("temperature":"hot")")), 400,
                 "temperature");
    expect_error(post("/v1/chat/completions", chat_body(R"("n":2)")), 400, "n");
    expect_error(post("/v1/chat/completions", chat_body(R"("max_tokens":-1)")), 400, "max_tokens");
    expect_error(post("/v1/chat/completions",
                      "{\"messages\":[{\"role\":\"user\",\"content\":"
                      "\"\xc3\x28\"}]}"),
                 400, "messages[0].content");
    expect_error(post("/v1/chat/completions",
                      R"({"model":"gpt-4o","messages":[{"role":"user","content":"Hi"}]})"),
                 404, "model_not_found");
    std::string words;
    for (int i = 0; i < 400; ++i) words += "word ";
    const auto long_prompt = post("/v1/chat/completions",
                                  R"({"messages":[{"role":"user","content":")" + words + "\"}]}");
    expect_error(long_prompt, 400, "context_length_exceeded");
    EXPECT_NE(long_prompt->body.find(std::to_string(kContext)), std::string::npos);
    expect_error(client().Get("/v1/nothing"), 404, "not_found");
    expect_error(client().Get("/v1/chat/completions"), 405, "method_not_allowed");
    EXPECT_EQ(client().Get("/v1/chat/completions")->get_header_value("Allow"), "POST");
    expect_error(client().Delete("/v1/models"), 405, "method_not_allowed");
    // And it still answers.
    EXPECT_EQ(client().Get("/health")->status, 200);
}

TEST_F(ApiServerTest, ABodyOverTheLimitIs413) {
    start();
    const std::string huge(size_t{9} << 20, ' ');
    expect_error(post("/v1/chat/completions", huge), 413, "request_too_large");
    EXPECT_EQ(client().Get("/health")->status, 200);
}

TEST_F(ApiServerTest, HeadersPastTheLimitAreRefused) {
    start();
    httplib::Headers many;  // 100 KiB of headers, each line short enough for httplib alone
    for (int i = 0; i < 100; ++i)
        many.emplace("X-Filler-" + std::to_string(i), std::string(1000, 'x'));
    const auto refused = client().Get("/health", many);
    // A 400, or the connection closed while the client was still sending: never served.
    if (refused) {
        EXPECT_EQ(refused->status, 400) << refused->body;
    } else {
        EXPECT_NE(refused.error(), httplib::Error::Success);
    }
    httplib::Headers few;
    for (int i = 0; i < 20; ++i)
        few.emplace("X-Filler-" + std::to_string(i), std::string(1000, 'x'));
    EXPECT_EQ(client().Get("/health", few)->status, 200);  // 20 KiB is within the limit
}

TEST_F(ApiServerTest, WithAKeyEveryRequestNeedsIt) {
    start({.rows = 1, .context_length = kContext}, {.api_key = "sk-hearth-test"});
    const httplib::Headers right{{"Authorization", "Bearer sk-hearth-test"}};
    const httplib::Headers wrong{{"Authorization", "Bearer sk-hearth-tesT"}};
    const std::string body = chat_body(R"("max_tokens":2)");
    expect_error(post("/v1/chat/completions", body), 401, "invalid_api_key");
    expect_error(post("/v1/chat/completions", body, wrong), 401, "invalid_api_key");
    EXPECT_EQ(post("/v1/chat/completions", body, wrong)->get_header_value("WWW-Authenticate"),
              "Bearer");
    // Nothing else is told: not whether a path exists, not how large a body may be.
    expect_error(client().Get("/nowhere"), 401, "invalid_api_key");
    expect_error(client().Get("/metrics"), 401, "invalid_api_key");
    expect_error(post("/v1/completions", std::string(size_t{9} << 20, 'x')), 401,
                 "invalid_api_key");
    EXPECT_EQ(post("/v1/chat/completions", body, right)->status, 200);
    EXPECT_EQ(client().Get("/metrics", right)->status, 200);
}

// A context where a long answer takes seconds even on a fast machine.
constexpr int kLongContext = 4096;

// A long greedy answer (stories260K keeps going to max_tokens) that occupies a row.
CompletionRequest long_completion() {
    return {.prompt = "Once upon a time",
            .options = {.max_tokens = kLongContext - 96,
                        .sampler = {.temperature = 0.0f},
                        .fresh_seed = false,
                        .overflow = OverflowPolicy::Stop}};
}

TEST_F(ApiServerTest, AFullQueueIs429) {
    start({.rows = 1, .context_length = kLongContext, .queue_limit = 1});
    auto busy = m_scheduler->submit(long_completion());
    auto waiting = m_scheduler->submit(long_completion());
    expect_error(post("/v1/completions", R"({"prompt":"Hi"})"), 429, "queue_full");
    waiting->cancel();
    busy->cancel();
    ASSERT_TRUE(rows_free_again());
}

TEST_F(ApiServerTest, AQueuedRequestThatWaitsTooLongIs503) {
    start({.rows = 1, .context_length = kLongContext, .queue_wait = 20ms});
    auto busy = m_scheduler->submit(long_completion());
    expect_error(post("/v1/completions", R"({"prompt":"Hi","stream":true})"), 503, "queue_timeout");
    busy->cancel();
    ASSERT_TRUE(rows_free_again());
}

TEST_F(ApiServerTest, StoppingAnswersQueuedRequests503AndEndsStreams) {
    start({.rows = 1, .context_length = kLongContext});
    // A stream that runs until the server stops, and a request queued behind it.
    auto streaming = std::async(std::launch::async, [&] {
        return post("/v1/completions",
                    R"({"prompt":"Once upon a time","max_tokens":4000,"temperature":0,)"
                    R"("stream":true})");
    });
    ASSERT_TRUE(eventually([&] { return m_scheduler->counters().rows_busy == 1; }));
    auto queued = std::async(std::launch::async,
                             [&] { return post("/v1/completions", R"({"prompt":"Hi"})"); });
    ASSERT_TRUE(eventually([&] { return m_scheduler->counters().queue_depth == 1; }));
    m_server->stop();
    expect_error(queued.get(), 503, "server_stopping");
    const auto stream = streaming.get();
    ASSERT_TRUE(stream) << httplib::to_string(stream.error());
    EXPECT_EQ(stream->status, 200);
    const auto payloads = sse_payloads(stream->body);
    ASSERT_GE(payloads.size(), 2u);
    EXPECT_EQ(payloads.back(), "[DONE]");  // the stream was ended, not cut
    EXPECT_LT(m_scheduler->counters().generated_tokens_total, 4000u);
}

TEST_F(ApiServerTest, AClientThatDisconnectsMidStreamFreesItsRow) {
    start({.rows = 1, .context_length = kLongContext});
    int chunks = 0;
    httplib::Request request;
    request.method = "POST";
    request.path = "/v1/completions";
    request.body =
        R"({"prompt":"Once upon a time","max_tokens":4000,"temperature":0,"stream":true})";
    request.set_header("Content-Type", "application/json");
    request.content_receiver = [&](const char*, size_t, uint64_t, uint64_t) {
        return ++chunks < 3;  // reads three chunks, then hangs up
    };
    auto connection = client();
    const auto result = connection.send(request);
    EXPECT_EQ(result.error(), httplib::Error::Canceled);
    connection.stop();
    ASSERT_TRUE(rows_free_again());
    // The answer was cut short by the disconnect, not finished: 4000 tokens take seconds.
    const auto counters = m_scheduler->counters();
    EXPECT_LT(counters.generated_tokens_total, 4000u);
    EXPECT_EQ(counters.requests_finished, 1u);
    EXPECT_EQ(client().Get("/health")->status, 200);
}

// The observer the app keeps API conversations with: told of each chat answer that ran to its
// end, streamed or not, with the request as read and the answer the client got; not of raw
// completions, nor of an answer its client abandoned; and what it throws costs no client its
// answer.
TEST_F(ApiServerTest, EveryFinishedChatAnswerIsToldToTheObserver) {
    std::mutex mutex;
    std::vector<std::pair<ChatRequest, GenerationResult>> told;
    start({.rows = 1, .context_length = kLongContext},
          {.on_chat_answered = [&](const ChatRequest& request, const GenerationResult& result) {
              {
                  std::lock_guard lock(mutex);
                  told.emplace_back(request, result);
              }
              throw std::runtime_error("an observer that fails");
          }});
    const auto told_count = [&] {
        std::lock_guard lock(mutex);
        return told.size();
    };
    const auto answer = post("/v1/chat/completions", chat_body(R"("max_tokens":8)"));
    ASSERT_TRUE(answer);
    ASSERT_EQ(answer->status, 200) << answer->body;
    ASSERT_EQ(told_count(), 1u);
    const auto& [request, result] = told.front();
    ASSERT_EQ(request.messages.size(), 2u);
    EXPECT_EQ(request.messages[0].role, "system");
    EXPECT_EQ(request.messages[1].content, "Once upon a time");
    EXPECT_EQ(request.max_tokens, 8);
    EXPECT_EQ(result.text,
              at(at(jinja::parse_json(answer->body), "choices").as_array().at(0), "message.content")
                  .as_string());
    EXPECT_EQ(result.stats.generated_tokens, 8);

    const auto streamed =
        post("/v1/chat/completions", chat_body(R"("max_tokens":8,"stream":true)"));
    ASSERT_TRUE(streamed);
    EXPECT_EQ(sse_payloads(streamed->body).back(), "[DONE]");
    EXPECT_EQ(told_count(), 2u);

    ASSERT_EQ(post("/v1/completions", R"({"prompt":"Hi","max_tokens":4})")->status, 200);
    EXPECT_EQ(told_count(), 2u);

    int chunks = 0;
    httplib::Request abandoned;
    abandoned.method = "POST";
    abandoned.path = "/v1/chat/completions";
    abandoned.body = chat_body(R"("max_tokens":4000,"stream":true)");
    abandoned.set_header("Content-Type", "application/json");
    abandoned.content_receiver = [&](const char*, size_t, uint64_t, uint64_t) {
        return ++chunks < 3;
    };
    auto connection = client();
    EXPECT_EQ(connection.send(abandoned).error(), httplib::Error::Canceled);
    connection.stop();
    ASSERT_TRUE(rows_free_again());
    EXPECT_EQ(m_scheduler->counters().requests_finished, 4u);
    EXPECT_EQ(told_count(), 2u);
}

}  // namespace
}  // namespace hearth::server
