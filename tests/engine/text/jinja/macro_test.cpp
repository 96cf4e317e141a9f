// {% macro %} and {% call %} as Python's Jinja runs them: argument binding, defaults, the
// scopes a macro sees, recursion, caller(), and the TypeErrors of a wrong call.
#include <gtest/gtest.h>

#include <string>

#include "engine/text/jinja/template.h"

namespace hearth::jinja {
namespace {

std::string render(const std::string& source, const Object& variables = {}) {
    return Template(source).render(variables, std::tm{});
}

TEST(Macro, BindsPositionalKeywordAndDefaultArguments) {
    const std::string macro =
        "{% macro tag(name, value='v', close=true) %}<{{ name }}={{ value }}"
        "{{ '/' if close }}>{% endmacro %}";
    EXPECT_EQ(render(macro + "{{ tag('a') }}{{ tag('b', 'x') }}{{ tag('c', close=false) }}"
                             "{{ tag(value=1, name='d') }}"),
              "<a=v/><b=x/><c=v><d=1/>");
    // A missing parameter without a default is undefined, not an error.
    EXPECT_EQ(render("{% macro m(a, b) %}{{ a }}{{ b is defined }}{% endmacro %}{{ m(1) }}"),
              "1False");
    // A default may read an earlier parameter; defaults are evaluated at each call.
    EXPECT_EQ(render("{% macro m(a, b=a * 2) %}{{ b }}{% endmacro %}{{ m(2) }}{{ m(5) }}"), "410");
}

TEST(Macro, ReturnsItsTextUnescapedAndUsableAsAValue) {
    EXPECT_EQ(render("{% macro m() %}<&\"'>{% endmacro %}{% set x = m() %}{{ x ~ x | length }}"),
              "<&\"'>5");
}

TEST(Macro, SeesTemplateVariablesAsTheyAreWhenCalledButNotItsCallersLoopVariables) {
    const Object variables = [] {
        Object object;
        object.set("greeting", Value("hi"));
        return object;
    }();
    EXPECT_EQ(render("{% macro show() %}{{ greeting }}/{{ late }}/{{ item is defined }}"
                     "{% endmacro %}{% set late = 'set after the macro' %}"
                     "{% for item in [1] %}{{ show() }}{% endfor %}",
                     variables),
              "hi/set after the macro/False");
    // Assignments inside a macro stay inside it.
    EXPECT_EQ(render("{% set x = 'outer' %}{% macro m() %}{% set x = 'inner' %}{{ x }}"
                     "{% endmacro %}{{ m() }}{{ x }}"),
              "innerouter");
}

TEST(Macro, RecursesAsJsonSchemaRenderersDo) {
    const std::string type_of =
        "{% macro type_of(spec) %}{% if spec.type == 'array' %}list[{{ type_of(spec['items']) "
        "}}]{% else %}{{ spec.type }}{% endif %}{% endmacro %}";
    Object variables;
    variables.set("schema", Value(Object([] {
                      Object inner;
                      inner.set("type", Value("array"));
                      Object leaf;
                      leaf.set("type", Value("int"));
                      inner.set("items", Value(leaf));
                      Object outer;
                      outer.set("type", Value("array"));
                      outer.set("items", Value(inner));
                      return outer;
                  }())));
    EXPECT_EQ(render(type_of + "{{ type_of(schema) }}", variables), "list[list[int]]");
}

TEST(Macro, CallBlocksHandTheirBodyToTheMacroAsCaller) {
    const std::string wrap =
        "{% macro wrap(tag) %}<{{ tag }}>{{ caller() }}</{{ tag }}>{% endmacro %}";
    EXPECT_EQ(render(wrap + "{% for who in ['a', 'b'] %}{% call wrap('p') %}{{ who }}"
                            "{% endcall %}{% endfor %}"),
              "<p>a</p><p>b</p>");
    EXPECT_EQ(render("{% macro each(items) %}{% for i in items %}{{ caller(i, last=loop.last) }}"
                     "{% endfor %}{% endmacro %}{% call(item, last=false) each([1, 2]) %}"
                     "{{ item }}{{ ',' if not last }}{% endcall %}"),
              "1,2");
}

TEST(Macro, CatchesExtraArgumentsOnlyWhenItReadsVarargsOrKwargs) {
    EXPECT_EQ(render("{% macro m(a) %}{{ a }}{{ varargs }}{{ kwargs }}{% endmacro %}"
                     "{{ m(1, 2, 3, k='v') }}"),
              "1[2, 3]{'k': 'v'}");
    EXPECT_THROW(render("{% macro m(a) %}{{ a }}{% endmacro %}{{ m(1, 2) }}"), RenderError);
    EXPECT_THROW(render("{% macro m(a) %}{{ a }}{% endmacro %}{{ m(b=1) }}"), RenderError);
    EXPECT_THROW(render("{% macro m(a) %}{{ a }}{% endmacro %}{% call m(1) %}x{% endcall %}"),
                 RenderError);
}

TEST(Macro, MalformedDefinitionsNameTheLine) {
    for (const char* source : {"{% macro m(a %}{% endmacro %}", "{% macro m() %}",
                               "{% call 3 %}{% endcall %}", "{% macro (a) %}{% endmacro %}"}) {
        try {
            Template{source};
            ADD_FAILURE() << "parsed: " << source;
        } catch (const RenderError& error) {
            EXPECT_FALSE(std::string(error.what()).empty());
        }
    }
}

}  // namespace
}  // namespace hearth::jinja
