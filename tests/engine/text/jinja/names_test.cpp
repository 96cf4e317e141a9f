// The names a template reads: what tells a front end whether a chat template has a switch
// such as enable_thinking, so a comment, a string or an attribute of that name must not count.
#include "engine/text/jinja/names.h"

#include <gtest/gtest.h>

#include "engine/text/jinja/parser.h"
#include "engine/text/jinja/template.h"

namespace hearth::jinja {
namespace {

TEST(Names, OnlyLookupsCountNotCommentsStringsAttributesFiltersOrAssignments) {
    const auto names = names_read(parse_template(
        "{# enable_thinking #}{{ 'enable_thinking' }}{{ message.enable_thinking }}"
        "{% set chosen = fallback | default(other) %}"
        "{% for item in items if item is defined %}{{ shown if visible }}{% endfor %}"
        "{{ messages[first:] | length }}{{ raise_exception('no') if broken else '' }}"));
    EXPECT_EQ(names,
              (std::set<std::string>{"broken", "fallback", "first", "item", "items", "message",
                                     "messages", "other", "raise_exception", "shown", "visible"}));
}

TEST(Names, ATemplateReadsWhatItsBranchesTestEvenWhenTheyDoNotRun) {
    const Template qwen3_tail(
        "{%- if add_generation_prompt %}{{- '<|im_start|>assistant\\n' }}"
        "{%- if enable_thinking is defined and enable_thinking is false %}"
        "{{- '<think>\\n\\n</think>\\n\\n' }}{%- endif %}{%- endif %}");
    EXPECT_TRUE(qwen3_tail.reads("enable_thinking"));
    EXPECT_TRUE(qwen3_tail.reads("add_generation_prompt"));
    EXPECT_FALSE(qwen3_tail.reads("thinking"));
    // Assigned before any read (SmolLM3 reads it first, in `is not defined`): still read.
    EXPECT_TRUE(Template("{% if enable_thinking is not defined %}{% set enable_thinking = true "
                         "%}{% endif %}")
                    .reads("enable_thinking"));
    EXPECT_FALSE(Template("{% set enable_thinking = true %}").reads("enable_thinking"));
}

}  // namespace
}  // namespace hearth::jinja
