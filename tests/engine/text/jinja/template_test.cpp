// Every case of every chat-template fixture (shared/fixtures/chat_templates), rendered byte for
// byte as transformers renders it, or failing where the fixture expects an error.
#include "engine/text/jinja/template.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "engine/text/jinja/access.h"
#include "engine/text/jinja/json.h"
#include "engine/text/jinja/parser.h"
#include "tests/support/shared_data.h"
#include "tests/support/template_fixtures.h"
#include "tests/support/unsupported_files.h"

namespace hearth::jinja {
namespace {

Value load_fixture(const std::string& family) {
    std::ifstream stream(test::fixture_path("chat_templates/" + family + ".json"));
    std::stringstream content;
    content << stream.rdbuf();
    return parse_json(content.str());
}

std::vector<std::string> families() {
    std::vector<std::string> names;
    for (const auto& entry :
         std::filesystem::directory_iterator(test::fixture_path("chat_templates"))) {
        if (entry.path().extension() == ".json") names.push_back(entry.path().stem().string());
    }
    std::sort(names.begin(), names.end());
    return names;
}

class ChatTemplateFixtureTest : public testing::TestWithParam<std::string> {};

TEST_P(ChatTemplateFixtureTest, EveryCaseRendersExactlyOrFailsAsExpected) {
    const Value fixture = load_fixture(GetParam());
    const std::string source = get_attribute(fixture, "template").as_string();
    if (const auto* entry = test::find_unsupported(GetParam() + ".json")) {
        test::expect_refused(*entry, [&] { const Template refused(source); });
        return;
    }
    const Template compiled(source);
    int rendered = 0, rejected = 0;
    for (const auto& case_value : get_attribute(fixture, "cases").as_array()) {
        const auto& test_case = case_value.as_object();
        Object variables;
        variables.set("messages", *test_case.find("messages"));
        variables.set("add_generation_prompt", *test_case.find("add_generation_prompt"));
        const Value* tools = test_case.find("tools");
        variables.set("tools", tools ? *tools : Value(None{}));
        variables.set("documents", Value(None{}));
        for (const char* token : {"bos_token", "eos_token"}) {
            const Value& text = *fixture.as_object().find(token);
            if (!text.is_none()) variables.set(token, text);
        }
        if (const Value* context = test_case.find("context")) {
            for (const auto& [key, value] : context->as_object().entries())
                variables.set(key, value);
        }
        const std::string name = test_case.find("name")->as_string();
        if (const Value* expected = test_case.find("expected")) {
            try {
                EXPECT_EQ(compiled.render(variables, test::fixture_now()), expected->as_string())
                    << name;
            } catch (const RenderError& error) {
                ADD_FAILURE() << name << ": " << error.what();
            }
            ++rendered;
            continue;
        }
        const std::string expected_error = test_case.find("expected_error")->as_string();
        const bool raised = test_case.find("error_kind")->as_string() == "raise_exception";
        try {
            compiled.render(variables, test::fixture_now());
            ADD_FAILURE() << name << ": rendered, but the fixture expects: " << expected_error;
        } catch (const TemplateRaised& error) {
            EXPECT_TRUE(raised) << name << ": " << error.what();
            if (raised) {
                EXPECT_EQ(std::string(error.what()), expected_error) << name;
            }
        } catch (const RenderError& error) {
            EXPECT_FALSE(raised) << name << ": " << error.what();
        }
        ++rejected;
    }
    std::printf("%s: %d rendered, %d rejected\n", GetParam().c_str(), rendered, rejected);
}

INSTANTIATE_TEST_SUITE_P(SharedTemplates, ChatTemplateFixtureTest, testing::ValuesIn(families()),
                         [](const auto& info) {
                             std::string name = info.param;
                             for (char& c : name) {
                                 if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                             }
                             return name;
                         });

TEST(Template, EveryFixtureFamilyIsPresent) {
    const auto all = families();
    const auto supported = std::count_if(all.begin(), all.end(), [](const std::string& family) {
        return test::find_unsupported(family + ".json") == nullptr;
    });
    EXPECT_GE(supported, 35) << "is ../shared present?";
}

TEST(Template, UnsupportedConstructsAreNamed) {
    for (const std::string tag : {"include", "extends", "import", "filter", "raw"}) {
        try {
            Template("{% " + tag + " 'other.jinja' %}");
            FAIL() << "expected UnsupportedTemplate for " << tag;
        } catch (const UnsupportedTemplate& error) {
            EXPECT_NE(std::string(error.what()).find("{% " + tag + " %}"), std::string::npos)
                << error.what();
        }
    }
    const Template filter("{{ 'x' | wordwrap(3) }}");
    EXPECT_THROW(filter.render({}, test::fixture_now()), UnsupportedTemplate);
}

TEST(Template, PythonSemanticsTheTemplatesRelyOn) {
    const auto render = [](const std::string& source) {
        return Template(source).render({}, test::fixture_now());
    };
    EXPECT_EQ(
        render("{{ none }}|{{ true }}|{{ 1.0 }}|{{ 7 // 2 }}|{{ -7 % 3 }}|{{ undefined_thing }}"),
        "None|True|1.0|3|2|");
    EXPECT_EQ(
        render("{{ '\\u00a0 x \\u3000'.strip() }}|{{ 'a,b,,c'.split(',')[-1] }}|{{ 'abc'[::-1] }}"),
        "x|c|cba");
    EXPECT_EQ(render("{{ {'b': 1, 'a': [1, 2.5, none]} | tojson }}"),
              "{\"b\": 1, \"a\": [1, 2.5, null]}");
    EXPECT_EQ(render("{{ {'k': 'é\\n'} | tojson(indent=2) }}"), "{\n  \"k\": \"é\\n\"\n}");
    EXPECT_EQ(render("{% for x in [1, 2, 3] if x != 2 %}{{ loop.index0 }}{{ x }}{% if loop.last "
                     "%}!{% endif %}{% endfor %}"),
              "0113!");
    EXPECT_EQ(render("{% set ns = namespace(n=0) %}{% for i in range(3) %}{% set ns.n = ns.n + i "
                     "%}{% set local = 1 %}"
                     "{% endfor %}{{ ns.n }}{{ local is defined }}"),
              "3False");
    EXPECT_EQ(render("{{ strftime_now('%d %b %Y, %A') }}"), "22 Nov 2026, Sunday");
    EXPECT_EQ(render("  {% if true %}\n  x\n  {% endif %}\nend"), "  x\nend");
    EXPECT_THROW(render("{{ undefined_thing + 'x' }}"), RenderError);
    EXPECT_THROW(render("{{ raise_exception('no') }}"), TemplateRaised);
}

// What the second set of templates (gpt-oss, Hermes, Qwen3-Coder, Mistral) adds, with the
// results Python's Jinja gives.
TEST(Template, LoopNeighboursMethodsAndTestsOfTheSecondSet) {
    const auto render = [](const std::string& source) {
        return Template(source).render({}, test::fixture_now());
    };
    EXPECT_EQ(render("{% for x in ['a', 'b', 'c'] %}[{{ loop.previtem is defined }}"
                     "{{ loop.previtem }}{{ loop.nextitem }}{{ loop.index }}{{ loop.length }}"
                     "{{ loop.revindex }}]{% endfor %}"),
              "[Falseb133][Trueac232][Trueb331]");
    EXPECT_EQ(render("{% set d = {'k': 1, 'j': [2]} %}{% for k, v in d.items() %}{{ k }}={{ v }};"
                     "{% endfor %}{{ d.get('j') }}{{ d.get('x', 'none') }}{{ d.get('x') }}"),
              "k=1;j=[2];[2]noneNone");
    EXPECT_EQ(render("{{ [1] is sequence }}{{ 'ab' is sequence }}{{ {} is sequence }}"
                     "{{ 3 is sequence }}{{ none is sequence }}"),
              "TrueTrueTrueFalseFalse");
    EXPECT_EQ(render("{{ ('<b>' | safe) ~ '&' }}{{ [1, 'a', [none]] }}{{ [1, 2, 3][:2] }}"
                     "{{ 'abc'[:-1] }}{{ [1, 2][:none] }}"),
              "<b>&[1, 'a', [None]][1, 2]ab[1, 2]");
    // Jinja iterates undefined as empty but None raises, as Python does.
    EXPECT_EQ(render("{% for x in missing %}x{% endfor %}."), ".");
    EXPECT_THROW(render("{% for x in none %}x{% endfor %}"), RenderError);
    EXPECT_EQ(render("{{ missing | trim }}|{{ missing | upper }}"), "|");
}

}  // namespace
}  // namespace hearth::jinja
