#include "engine/text/chat_json.h"

#include <gtest/gtest.h>

#include "engine/text/jinja/json.h"

namespace hearth {
namespace {

std::vector<ChatMessage> parse(const std::string& json) {
    return parse_chat_messages(jinja::parse_json(json));
}

std::string error_of(const std::function<void()>& attempt) {
    try {
        attempt();
    } catch (const std::invalid_argument& error) {
        return error.what();
    }
    return "(no error)";
}

TEST(ChatJson, ReadsEveryFieldAClientSends) {
    const auto messages = parse(R"([
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": [{"type": "text", "text": "Weather "},
                                     {"type": "text", "text": "in Paris?"}]},
        {"role": "assistant", "content": null, "reasoning_content": "Call the tool.",
         "tool_calls": [{"id": "c1", "type": "function",
                         "function": {"name": "weather", "arguments": {"city": "Paris"}}},
                        {"function": {"name": "time", "arguments": "{\"zone\": \"CET\"}"}}]},
        {"role": "tool", "tool_call_id": "c1", "name": "weather", "content": "12C"},
        {"role": "assistant", "content": "12C.", "thinking": "Report it."}])");
    ASSERT_EQ(messages.size(), 5u);
    EXPECT_EQ(messages[1].content, "Weather in Paris?");
    ASSERT_TRUE(messages[1].content_parts);
    EXPECT_EQ(*messages[1].content_parts, (std::vector<std::string>{"Weather ", "in Paris?"}));
    EXPECT_FALSE(messages[0].content_parts);
    EXPECT_EQ(messages[2].content, "");
    EXPECT_EQ(messages[2].reasoning, "Call the tool.");
    ASSERT_EQ(messages[2].tool_calls.size(), 2u);
    EXPECT_EQ(messages[2].tool_calls[0].id, "c1");
    EXPECT_EQ(messages[2].tool_calls[0].arguments, R"({"city": "Paris"})");
    EXPECT_FALSE(messages[2].tool_calls[0].arguments_as_text);
    EXPECT_EQ(messages[2].tool_calls[1].id, "");
    EXPECT_EQ(messages[2].tool_calls[1].arguments, R"({"zone": "CET"})");
    EXPECT_TRUE(messages[2].tool_calls[1].arguments_as_text);
    EXPECT_EQ(messages[3].tool_call_id, "c1");
    EXPECT_EQ(messages[3].name, "weather");
    EXPECT_EQ(messages[4].reasoning, "Report it.");
}

TEST(ChatJson, NamesTheValueThatIsWrong) {
    EXPECT_EQ(error_of([] { parse(R"({"role": "user"})"); }), "messages must be an array");
    EXPECT_EQ(error_of([] { parse(R"([{"content": "hi"}])"); }), "messages[0].role is missing");
    EXPECT_EQ(error_of([] { parse(R"([{"role": "robot", "content": "hi"}])"); }),
              "messages[0].role is 'robot'; expected system, developer, user, assistant or tool");
    EXPECT_EQ(error_of([] { parse(R"([{"role": "user", "content": 3}])"); }),
              "messages[0].content must be a string, null or a list of parts");
    EXPECT_EQ(
        error_of([] {
            parse(R"([{"role": "user", "content": [{"type": "image_url", "image_url": {}}]}])");
        }),
        "messages[0].content[0] is a 'image_url' part; only text parts are supported");
    EXPECT_EQ(
        error_of([] {
            parse(R"([{"role": "assistant", "tool_calls": [{"function": {"arguments": {}}}]}])");
        }),
        "messages[0].tool_calls[0].function.name is missing");
    EXPECT_EQ(
        error_of([] {
            parse(
                R"([{"role": "assistant", "tool_calls": [{"function": {"name": "f", "arguments": 1}}]}])");
        }),
        "messages[0].tool_calls[0].function.arguments must be an object or a JSON string");
}

TEST(ChatJson, ToolDefinitionsAreCheckedAndKeptAsGiven) {
    const auto tools = jinja::parse_json(
        R"([{"type": "function", "function": {"name": "weather", "parameters": {"type": "object"}}}])");
    EXPECT_EQ(jinja::dump_json(parse_tool_definitions(tools)), jinja::dump_json(tools));
    EXPECT_EQ(
        error_of([] { parse_tool_definitions(jinja::parse_json(R"([{"type": "function"}])")); }),
        "tools[0].function is missing");
    EXPECT_EQ(error_of([] {
                  parse_tool_definitions(jinja::parse_json(
                      R"([{"type": "function", "function": {"name": "f", "parameters": []}}])"));
              }),
              "tools[0].function.parameters must be an object");
    EXPECT_EQ(error_of([] { parse_tool_definitions(jinja::parse_json("{}")); }),
              "tools must be an array");
}

}  // namespace
}  // namespace hearth
