// What the API's answers mean, and how a malformed one is reported.
#include "engine/remote/completion_events.h"

#include <gtest/gtest.h>

#include "engine/remote/remote_error.h"

namespace hearth::remote {
namespace {

// The failure parse_chunk reports for `data`, and its message.
std::pair<RemoteFailure, std::string> chunk_failure(const std::string& data) {
    try {
        parse_chunk(data);
    } catch (const RemoteError& error) {
        return {error.failure(), error.what()};
    }
    ADD_FAILURE() << "no error for " << data;
    return {};
}

TEST(CompletionEvents, MalformedEventsAreNamed) {
    const struct {
        const char* data;
        const char* named;
    } cases[] = {
        {"{not json", "not JSON"},
        {"[1,2]", "not a JSON object"},
        {R"({"id":"x"})", "without choices"},
        {R"({"choices":[{"delta":{"content":7}}]})", "'content' that is not text"},
        {R"({"choices":[{"delta":"hi"}]})", "delta that is not an object"},
        {R"({"choices":[{"finish_reason":1,"delta":{}}]})", "finish_reason that is not text"},
    };
    for (const auto& each : cases) {
        const auto [failure, message] = chunk_failure(each.data);
        EXPECT_EQ(failure, RemoteFailure::MalformedStream) << each.data;
        EXPECT_NE(message.find(each.named), std::string::npos) << message;
    }
}

TEST(CompletionEvents, AnErrorEventIsTheServersErrorWithItsMessage) {
    const auto [failure, message] = chunk_failure(
        R"({"error":{"code":500,"message":"CUDA out of memory","type":"server_error"}})");
    EXPECT_EQ(failure, RemoteFailure::ServerError);
    EXPECT_NE(message.find("CUDA out of memory"), std::string::npos) << message;
}

TEST(CompletionEvents, NullContentAndDoneAreNotText) {
    const CompletionDelta role =
        parse_chunk(R"({"choices":[{"index":0,"delta":{"role":"assistant","content":null}}]})");
    EXPECT_TRUE(role.content.empty());
    EXPECT_FALSE(role.finish_reason);
    EXPECT_TRUE(parse_chunk("[DONE]").done);
}

TEST(CompletionEvents, AWholeAnswerReadsAsOneDelta) {
    const CompletionDelta answer = parse_completion(
        R"({"id":"c","object":"chat.completion","choices":[{"index":0,"message":{"role":)"
        R"("assistant","content":"Paris.","reasoning_content":"Capital of France."},)"
        R"("finish_reason":"stop"}],"usage":{"prompt_tokens":20,"completion_tokens":3,)"
        R"("total_tokens":23}})");
    EXPECT_EQ(answer.content, "Paris.");
    EXPECT_EQ(answer.reasoning, "Capital of France.");
    EXPECT_EQ(answer.finish_reason, "stop");
    ASSERT_TRUE(answer.usage);
    EXPECT_EQ(answer.usage->completion_tokens, 3);
}

TEST(CompletionEvents, ModelListsAndTheirFaults) {
    EXPECT_EQ(parse_model_list(R"({"object":"list","data":[{"id":"a","object":"model"},)"
                               R"({"id":"b"}]})"),
              (std::vector<std::string>{"a", "b"}));
    EXPECT_THROW(parse_model_list(R"({"models":[]})"), RemoteError);
    EXPECT_THROW(parse_model_list(R"({"data":[{"name":"a"}]})"), RemoteError);
}

TEST(CompletionEvents, ErrorMessagesFromEveryShape) {
    EXPECT_EQ(error_message(R"({"error":{"message":"Invalid API key"}})"), "Invalid API key");
    EXPECT_EQ(error_message(R"({"error":"model 'x' not found"})"), "model 'x' not found");
    EXPECT_EQ(error_message(R"({"detail":"Not Found"})"), "Not Found");  // FastAPI
    EXPECT_EQ(error_message("Bad Gateway"), "Bad Gateway");
    EXPECT_EQ(error_message(""), "(no message)");
    EXPECT_EQ(error_message(std::string(1000, 'x')).size(), 200u + std::string("…").size());
}

}  // namespace
}  // namespace hearth::remote
