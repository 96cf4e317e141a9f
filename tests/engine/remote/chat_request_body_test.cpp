// A chat request in the API's fields; what has no field is reported.
#include "engine/remote/chat_request_body.h"

#include <gtest/gtest.h>

#include "engine/text/jinja/json.h"

namespace hearth::remote {
namespace {

using jinja::Value;

const Value& field(const Value& object, const std::string& name) {
    const Value* value = object.as_object().find(name);
    if (value == nullptr) throw std::runtime_error("no field " + name);
    return *value;
}

bool has(const Value& object, const std::string& name) {
    return object.as_object().find(name) != nullptr;
}

TEST(ChatRequestBody, TheWholeConversationAndTheSamplingFields) {
    ChatRequest request{
        .max_tokens = 64,
        .sampler = {.temperature = 0.7f, .top_k = 20, .top_p = 0.9f, .min_p = 0.0f, .seed = 42},
        .fresh_seed = false,
        .stop_strings = {"\n\n"}};
    request.messages = {{.role = "system", .content = "Be brief."},
                        {.role = "user", .content = "Hi"},
                        {.role = "assistant", .content = "Hello!", .reasoning = "Greet."},
                        {.role = "user", .content = "Bye"}};
    const ChatRequestBody body = chat_request_body("qwen3", request, true);
    const Value json = jinja::parse_json(body.json);
    EXPECT_EQ(field(json, "model").as_string(), "qwen3");
    const auto& messages = field(json, "messages").as_array();
    ASSERT_EQ(messages.size(), 4u);
    EXPECT_EQ(field(messages[2], "content").as_string(), "Hello!");
    EXPECT_EQ(field(messages[2], "reasoning_content").as_string(), "Greet.");
    EXPECT_FALSE(has(messages[1], "reasoning_content"));
    EXPECT_EQ(field(json, "max_tokens").as_int(), 64);
    EXPECT_FLOAT_EQ(static_cast<float>(field(json, "temperature").as_float()), 0.7f);
    EXPECT_FLOAT_EQ(static_cast<float>(field(json, "top_p").as_float()), 0.9f);
    EXPECT_EQ(field(json, "seed").as_int(), 42);
    EXPECT_EQ(field(json, "top_k").as_int(), 20);
    EXPECT_FALSE(has(json, "min_p"));  // switched off: not sent
    EXPECT_EQ(field(json, "stop").as_array().at(0).as_string(), "\n\n");
    EXPECT_TRUE(field(json, "stream").as_bool());
    EXPECT_TRUE(field(field(json, "stream_options"), "include_usage").as_bool());
    EXPECT_EQ(body.extensions, std::vector<std::string>{"top_k"});
    EXPECT_TRUE(body.not_sent.empty());
}

TEST(ChatRequestBody, GreedySendsTemperatureZeroAndNothingThatOnlyShapesSampling) {
    ChatRequest request{.sampler = {.temperature = 0.0f, .top_k = 40, .min_p = 0.05f}};
    request.messages = {{.role = "user", .content = "Hi"}};
    const ChatRequestBody body = chat_request_body("m", request, false);
    const Value json = jinja::parse_json(body.json);
    EXPECT_EQ(field(json, "temperature").as_float(), 0.0);
    EXPECT_FALSE(has(json, "top_k"));
    EXPECT_FALSE(has(json, "seed"));  // a fresh seed: the server picks one
    EXPECT_FALSE(has(json, "stream"));
    EXPECT_TRUE(body.extensions.empty());
}

TEST(ChatRequestBody, SettingsWithoutAFieldAreReportedAndExtensionsNamed) {
    ChatRequest request{
        .sampler = {.temperature = 1.0f, .top_k = 0, .min_p = 0.1f, .repeat_penalty = 1.1f},
        .json_schema = R"({"type":"object"})",
        .enable_thinking = false,
        .reasoning_effort = "low"};
    request.messages = {{.role = "user", .content = "Hi"}};
    const ChatRequestBody body = chat_request_body("m", request, true);
    const Value json = jinja::parse_json(body.json);
    EXPECT_EQ(body.extensions,
              (std::vector<std::string>{"min_p", "repeat_penalty", "chat_template_kwargs"}));
    EXPECT_EQ(body.not_sent, std::vector<std::string>{"penalty window"});
    EXPECT_FALSE(field(field(json, "chat_template_kwargs"), "enable_thinking").as_bool());
    EXPECT_EQ(field(json, "reasoning_effort").as_string(), "low");
    const Value& format = field(json, "response_format");
    EXPECT_EQ(field(format, "type").as_string(), "json_schema");
    EXPECT_EQ(field(field(field(format, "json_schema"), "schema"), "type").as_string(), "object");
}

}  // namespace
}  // namespace hearth::remote
