// hearth-cli --render-template on the chat-template fixtures: the OpenAI-shaped messages, tools
// and settings a user (or a script) writes, rendered exactly as transformers renders them.
#include <gtest/gtest.h>

#include <fstream>
#include <stdexcept>

#include "engine/text/jinja/access.h"
#include "engine/text/jinja/json.h"
#include "tests/support/cli_process.h"
#include "tests/support/temp_files.h"
#include "tests/support/template_fixtures.h"
#include "tests/support/unsupported_files.h"

namespace hearth {
namespace {

using test::run_cli;

QString path_text(const std::filesystem::path& path) {
    return QString::fromStdString(path.string());
}

// The command line that renders `test_case` of `fixture`: its files written under `directory`,
// the thinking and reasoning-effort variables as options, every other variable in --vars.
QStringList case_arguments(const jinja::Value& fixture, const jinja::Object& test_case,
                           const test::TempDirectory& directory) {
    std::ofstream(directory.path() / "template.jinja") << test::fixture_text(fixture, "template");
    std::ofstream(directory.path() / "messages.json")
        << jinja::dump_json(*test_case.find("messages"));
    QStringList arguments{"--render-template",
                          "--template-file",
                          path_text(directory.path() / "template.jinja"),
                          "--messages",
                          path_text(directory.path() / "messages.json"),
                          "--now",
                          "2026-11-22T09:30:00"};
    if (test_case.find("add_generation_prompt")->truthy()) arguments << "--add-generation-prompt";
    for (const auto& [key, option] :
         {std::pair{"bos_token", "--bos-token"}, std::pair{"eos_token", "--eos-token"}}) {
        const std::string text = test::fixture_text(fixture, key);
        if (!text.empty()) arguments << option << QString::fromStdString(text);
    }
    if (const jinja::Value* tools = test_case.find("tools")) {
        std::ofstream(directory.path() / "tools.json") << jinja::dump_json(*tools);
        arguments << "--tools" << path_text(directory.path() / "tools.json");
    }
    if (const jinja::Value* context = test_case.find("context")) {
        jinja::Object variables;
        for (const auto& [key, value] : context->as_object().entries()) {
            if (key == "enable_thinking" || key == "thinking")
                arguments << "--think" << (value.truthy() ? "on" : "off");
            else if (key == "reasoning_effort")
                arguments << "--reasoning-effort" << QString::fromStdString(value.as_string());
            else
                variables.set(key, value);
        }
        std::ofstream(directory.path() / "vars.json") << jinja::dump_json(jinja::Value(variables));
        arguments << "--vars" << path_text(directory.path() / "vars.json");
    }
    return arguments;
}

// Refused outright, or set aside for the family's built-in format with a warning.
void expect_cli_refused(const test::UnsupportedFile& entry, const test::CliResult& result) {
    test::expect_refused(entry, [&] {
        if (result.exit_code != 0 ||
            result.err.find("using the built-in format") != std::string::npos)
            throw std::runtime_error(result.err);
    });
}

// Every family's first case, and a rejected conversation.
TEST(CliRenderTemplate, RendersEveryFamilysFirstCaseExactly) {
    const test::TempDirectory directory;
    int rendered = 0;
    for (const auto& family : test::template_families()) {
        const auto fixture = test::template_fixture(family);
        const auto& first = jinja::get_attribute(fixture, "cases").as_array().front().as_object();
        const auto result = run_cli(case_arguments(fixture, first, directory));
        if (const auto* unsupported = test::find_unsupported(family + ".json")) {
            expect_cli_refused(*unsupported, result);
            continue;
        }
        ASSERT_EQ(result.exit_code, 0) << family << result.err;
        EXPECT_EQ(result.out, first.find("expected")->as_string()) << family;
        ++rendered;
    }
    EXPECT_GE(rendered, 32) << "is ../shared present?";

    std::ofstream(directory.path() / "gemma.jinja") << test::fixture_template("gemma-2-it");
    std::ofstream(directory.path() / "system.json")
        << R"([{"role": "system", "content": "x"}, {"role": "user", "content": "Hi"}])";
    const auto refused = run_cli({"--render-template", "--template-file",
                                  path_text(directory.path() / "gemma.jinja"), "--messages",
                                  path_text(directory.path() / "system.json")});
    EXPECT_EQ(refused.exit_code, 1);
    EXPECT_NE(refused.err.find("System role not supported"), std::string::npos) << refused.err;
}

// Tool definitions, tool calls (arguments as an object and as a JSON string), tool results,
// reasoning in history and the per-conversation variables: every case of a tool-calling family
// and of gpt-oss (harmony), each through one run of the CLI.
TEST(CliRenderTemplate, RendersToolCallsAndReasoningExactly) {
    const test::TempDirectory directory;
    for (const std::string family : {"hermes-2-pro-tool-use", "gpt-oss", "qwen3"}) {
        const auto fixture = test::template_fixture(family);
        int rendered = 0, rejected = 0;
        for (const auto& case_value : jinja::get_attribute(fixture, "cases").as_array()) {
            const auto& test_case = case_value.as_object();
            const std::string name = test_case.find("name")->as_string();
            const auto result = run_cli(case_arguments(fixture, test_case, directory));
            if (const auto* unsupported = test::find_unsupported(family + ".json")) {
                expect_cli_refused(*unsupported, result);
                break;
            }
            if (const jinja::Value* expected = test_case.find("expected")) {
                ASSERT_EQ(result.exit_code, 0) << family << " " << name << ": " << result.err;
                EXPECT_EQ(result.out, expected->as_string()) << family << " " << name;
                ++rendered;
            } else {
                EXPECT_EQ(result.exit_code, 1) << family << " " << name;
                // The template's own raise_exception message reaches the user verbatim.
                if (test_case.find("error_kind")->as_string() == "raise_exception") {
                    EXPECT_NE(result.err.find(test_case.find("expected_error")->as_string()),
                              std::string::npos)
                        << family << " " << name << ": " << result.err;
                }
                ++rejected;
            }
        }
        std::printf("%s: %d rendered, %d rejected\n", family.c_str(), rendered, rejected);
    }
}

TEST(CliRenderTemplate, NamesAMalformedMessage) {
    const test::TempDirectory directory;
    std::ofstream(directory.path() / "t.jinja") << test::fixture_template("chatml");
    std::ofstream(directory.path() / "messages.json")
        << R"([{"role": "user", "content": [{"type": "image_url"}]}])";
    const auto result =
        run_cli({"--render-template", "--template-file", path_text(directory.path() / "t.jinja"),
                 "--messages", path_text(directory.path() / "messages.json")});
    EXPECT_EQ(result.exit_code, 1);
    EXPECT_NE(result.err.find("messages.json: messages[0].content[0] is a 'image_url' part; only "
                              "text parts are supported"),
              std::string::npos)
        << result.err;
}

}  // namespace
}  // namespace hearth
