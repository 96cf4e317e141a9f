#include "app/server/stream_frames.h"

#include <gtest/gtest.h>

namespace hearth::server {
namespace {

const ResponseIdentity kChat{
    .endpoint = Endpoint::ChatCompletions, .id = "chatcmpl-1", .created = 1700000000, .model = "m"};
const ResponseIdentity kText{
    .endpoint = Endpoint::Completions, .id = "cmpl-1", .created = 1700000000, .model = "m"};

GenerationResult result(StopReason reason) {
    return {.stats = {.prompt_tokens = 10,
                      .cached_tokens = 4,
                      .generated_tokens = 3,
                      .stop_reason = reason},
            .text = "Hi there"};
}

constexpr const char* kChatHead =
    R"(data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1700000000,"model":"m",)";

TEST(StreamFrames, AChatStreamIsFramedAsOpenAIFramesIt) {
    const StreamFrames frames(kChat, false);
    EXPECT_EQ(frames.opening(),
              std::string(kChatHead) +
                  R"("choices":[{"index":0,"delta":{"role":"assistant","content":""},)"
                  R"("logprobs":null,"finish_reason":null}]})"
                  "\n\n");
    EXPECT_EQ(frames.text("Hi"),
              std::string(kChatHead) +
                  R"("choices":[{"index":0,"delta":{"content":"Hi"},"logprobs":null,)"
                  R"("finish_reason":null}]})"
                  "\n\n");
    EXPECT_EQ(frames.closing(result(StopReason::EndOfGeneration)),
              std::string(kChatHead) +
                  R"("choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"stop"}]})"
                  "\n\ndata: [DONE]\n\n");
}

TEST(StreamFrames, EmptyTextWritesNothing) {
    EXPECT_EQ(StreamFrames(kChat, false).text(""), "");
    EXPECT_EQ(StreamFrames(kText, false).text(""), "");
    EXPECT_EQ(StreamFrames(kText, false).opening(), "");  // completions have no role chunk
}

TEST(StreamFrames, TextIsEscapedAsJson) {
    EXPECT_NE(StreamFrames(kChat, false).text("a\"b\n\\").find(R"("content":"a\"b\n\\")"),
              std::string::npos);
}

TEST(StreamFrames, IncludeUsageAddsNullUsageEverywhereAndAUsageChunkBeforeDone) {
    const StreamFrames frames(kChat, true);
    EXPECT_NE(frames.text("x").find(R"(,"usage":null})"), std::string::npos);
    const std::string closing = frames.closing(result(StopReason::MaxTokens));
    EXPECT_EQ(closing,
              std::string(kChatHead) +
                  R"("choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"length"}],)"
                  R"("usage":null})"
                  "\n\n" +
                  kChatHead +
                  R"("choices":[],"usage":{"prompt_tokens":10,"completion_tokens":3,)"
                  R"("total_tokens":13,"prompt_tokens_details":{"cached_tokens":4}}})"
                  "\n\ndata: [DONE]\n\n");
}

TEST(StreamFrames, ACompletionStreamCarriesTextChoices) {
    const StreamFrames frames(kText, false);
    const std::string head =
        R"(data: {"id":"cmpl-1","object":"text_completion","created":1700000000,"model":"m",)";
    EXPECT_EQ(frames.text("Once"),
              head +
                  R"("choices":[{"text":"Once","index":0,"logprobs":null,"finish_reason":null}]})"
                  "\n\n");
    EXPECT_EQ(frames.closing(result(StopReason::ContextFull)),
              head +
                  R"("choices":[{"text":"","index":0,"logprobs":null,"finish_reason":"length"}]})"
                  "\n\ndata: [DONE]\n\n");
}

TEST(StreamFrames, AFailureIsAnErrorEventThenDone) {
    const ApiError error(503, "server_error", "stopping", std::nullopt, "server_stopping");
    EXPECT_EQ(StreamFrames(kChat, false).failure(error),
              R"(data: {"error":{"message":"stopping","type":"server_error","param":null,)"
              R"("code":"server_stopping"}})"
              "\n\ndata: [DONE]\n\n");
}

}  // namespace
}  // namespace hearth::server
