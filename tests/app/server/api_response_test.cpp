#include "app/server/api_response.h"

#include <gtest/gtest.h>

#include "engine/text/jinja/json.h"

namespace hearth::server {
namespace {

GenerationResult answer(StopReason reason) {
    return {.stats = {.prompt_tokens = 12,
                      .cached_tokens = 5,
                      .generated_tokens = 4,
                      .stop_reason = reason},
            .text = "Once upon a time"};
}

TEST(ApiResponse, FinishReasonIsLengthOnlyWhenTheAnswerRanOutOfRoom) {
    EXPECT_EQ(finish_reason(StopReason::MaxTokens), "length");
    EXPECT_EQ(finish_reason(StopReason::ContextFull), "length");
    for (StopReason other :
         {StopReason::EndOfGeneration, StopReason::Cancelled, StopReason::StopString,
          StopReason::DocumentComplete, StopReason::NoValidToken}) {
        EXPECT_EQ(finish_reason(other), "stop");
    }
}

TEST(ApiResponse, AChatCompletionBody) {
    const ResponseIdentity identity{.endpoint = Endpoint::ChatCompletions,
                                    .id = "chatcmpl-7",
                                    .created = 1712345678,
                                    .model = "stories260K"};
    EXPECT_EQ(response_body(identity, answer(StopReason::EndOfGeneration)),
              R"({"id":"chatcmpl-7","object":"chat.completion","created":1712345678,)"
              R"("model":"stories260K","choices":[{"index":0,"message":{"role":"assistant",)"
              R"("content":"Once upon a time","refusal":null},"logprobs":null,)"
              R"("finish_reason":"stop"}],"usage":{"prompt_tokens":12,"completion_tokens":4,)"
              R"("total_tokens":16,"prompt_tokens_details":{"cached_tokens":5}}})");
}

TEST(ApiResponse, ATextCompletionBody) {
    const ResponseIdentity identity{
        .endpoint = Endpoint::Completions, .id = "cmpl-7", .created = 1, .model = "m"};
    const auto body = jinja::parse_json(response_body(identity, answer(StopReason::MaxTokens)));
    EXPECT_EQ(body.as_object().find("object")->as_string(), "text_completion");
    const auto& choice = body.as_object().find("choices")->as_array()[0].as_object();
    EXPECT_EQ(choice.find("text")->as_string(), "Once upon a time");
    EXPECT_EQ(choice.find("finish_reason")->as_string(), "length");
    EXPECT_EQ(body.as_object().find("usage")->as_object().find("total_tokens")->as_int(), 16);
}

}  // namespace
}  // namespace hearth::server
