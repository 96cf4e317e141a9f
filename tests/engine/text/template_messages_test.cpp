// Every case of every chat-template fixture again, this time the way front ends render: the
// OpenAI-shaped JSON read into ChatMessage (parse_chat_messages), the settings into
// ChatRenderOptions, and ChatTemplate building the template's input. Byte-exact output here
// means the window, the CLI and the server lose nothing a template reads.
#include "engine/text/template_messages.h"

#include <gtest/gtest.h>

#include "engine/text/chat_json.h"
#include "engine/text/chat_template.h"
#include "engine/text/jinja/access.h"
#include "engine/text/jinja/json.h"
#include "engine/text/jinja/parser.h"
#include "tests/support/template_fixtures.h"
#include "tests/support/unsupported_files.h"

namespace hearth {
namespace {

// The fixtures' per-case variables, as a front end sets them: the two thinking variables are
// one setting, reasoning_effort has its own, the rest pass through.
ChatRenderOptions options_of(const jinja::Object& test_case) {
    ChatRenderOptions options;
    options.now = test::fixture_now();
    options.add_generation_prompt = test_case.find("add_generation_prompt")->truthy();
    if (const jinja::Value* tools = test_case.find("tools"))
        options.tools = parse_tool_definitions(*tools);
    const jinja::Value* context = test_case.find("context");
    if (!context) return options;
    for (const auto& [key, value] : context->as_object().entries()) {
        if (key == "enable_thinking" || key == "thinking")
            options.enable_thinking = value.truthy();
        else if (key == "reasoning_effort")
            options.reasoning_effort = value.as_string();
        else
            options.extra_variables.set(key, value);
    }
    return options;
}

class TemplateMessagesFixtureTest : public testing::TestWithParam<std::string> {};

TEST_P(TemplateMessagesFixtureTest, FrontEndsRenderEveryCaseExactly) {
    const jinja::Value fixture = test::template_fixture(GetParam());
    const std::string source = test::fixture_text(fixture, "template");
    if (const auto* entry = test::find_unsupported(GetParam() + ".json")) {
        test::expect_refused(*entry, [&] { const jinja::Template refused(source); });
        return;
    }
    const ChatTemplate chat(source, test::fixture_text(fixture, "bos_token"),
                            test::fixture_text(fixture, "eos_token"));
    ASSERT_EQ(chat.fallback_reason(), "");
    int cases = 0;
    for (const auto& case_value : jinja::get_attribute(fixture, "cases").as_array()) {
        const auto& test_case = case_value.as_object();
        const std::string name = test_case.find("name")->as_string();
        const auto messages = parse_chat_messages(*test_case.find("messages"));
        const auto options = options_of(test_case);
        ++cases;
        if (const jinja::Value* expected = test_case.find("expected")) {
            try {
                EXPECT_EQ(chat.render(messages, options), expected->as_string()) << name;
            } catch (const jinja::RenderError& error) {
                ADD_FAILURE() << name << ": " << error.what();
            }
            continue;
        }
        EXPECT_THROW(chat.render(messages, options), jinja::RenderError) << name;
    }
    EXPECT_GT(cases, 10);
}

INSTANTIATE_TEST_SUITE_P(SharedTemplates, TemplateMessagesFixtureTest,
                         testing::ValuesIn(test::template_families()), [](const auto& info) {
                             std::string name = info.param;
                             for (char& c : name) {
                                 if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                             }
                             return name;
                         });

ChatMessage answered(std::string content, std::string reasoning) {
    return {.role = "assistant", .content = std::move(content), .reasoning = std::move(reasoning)};
}

std::string render(const std::string& source, const std::vector<ChatMessage>& messages) {
    return ChatTemplate(source, "", "").render(messages, {.add_generation_prompt = false});
}

const std::string kPrintsEverything =
    "{% for m in messages %}[{{ m.role }}|{{ m.reasoning_content }}|{{ m.content }}]"
    "{% endfor %}";

TEST(TemplateMessages, ReasoningGoesWhereTheTemplateReadsIt) {
    const std::vector<ChatMessage> thread{{"user", "2+2?"}, answered("4", "Add them.")};
    EXPECT_EQ(render(kPrintsEverything, thread), "[user||2+2?][assistant|Add them.|4]");
    EXPECT_EQ(
        render("{% for m in messages %}[{{ m.thinking }}|{{ m.content }}]{% endfor %}", thread),
        "[|2+2?][Add them.|4]");
    // Templates that strip a <think> block from earlier answers get the block written back.
    EXPECT_EQ(render("{% for m in messages %}[{{ m.content.split('</think>')|length }}:"
                     "{{ m.content }}]{% endfor %}",
                     thread),
              "[1:2+2?][2:<think>\nAdd them.\n</think>\n\n4]");
    // A template with no place for reasoning never shows it.
    EXPECT_EQ(render("{% for m in messages %}[{{ m.content }}]{% endfor %}", thread), "[2+2?][4]");
}

TEST(TemplateMessages, AThinkBlockInTheContentMovesToTheReasoningField) {
    const std::vector<ChatMessage> thread{answered("<think>\nAdd them.\n</think>\n\n4", "")};
    EXPECT_EQ(render(kPrintsEverything, thread), "[assistant|Add them.|4]");
    // A template that handles </think> itself gets the content as it was written.
    const std::string splits_itself =
        "{% for m in messages %}{{ m.content.split('</think>')[-1] }}|"
        "{{ m.reasoning_content }}{% endfor %}";
    EXPECT_EQ(render(splits_itself, thread), "\n\n4|");
}

TEST(TemplateMessages, ToolCallsKeepTheArgumentsFormTheClientChose) {
    const std::string source =
        "{% for m in messages %}{% for c in m.tool_calls %}{{ c.id }}:{{ c.function.name }}:"
        "{{ c.function.arguments is string }}:{{ c.function.arguments|tojson }};"
        "{% endfor %}{{ m.tool_call_id }}{% endfor %}";
    ChatMessage call{.role = "assistant"};
    call.tool_calls = {{"a1", "weather", R"({"city": "Paris"})", false},
                       {"", "time", R"({"zone":"UTC"})", true}};
    const ChatMessage result{.role = "tool", .content = "12C", .tool_call_id = "a1"};
    EXPECT_EQ(render(source, {call, result}),
              "a1:weather:False:{\"city\": \"Paris\"};"
              ":time:True:\"{\\\"zone\\\":\\\"UTC\\\"}\";a1");
}

TEST(TemplateMessages, ListContentStaysAList) {
    ChatMessage message{.role = "user", .content = "ab"};
    message.content_parts = std::vector<std::string>{"a", "b"};
    EXPECT_EQ(render("{% for m in messages %}{% for p in m.content %}<{{ p.type }}:{{ p.text }}>"
                     "{% endfor %}{% endfor %}",
                     {message}),
              "<text:a><text:b>");
}

}  // namespace
}  // namespace hearth
