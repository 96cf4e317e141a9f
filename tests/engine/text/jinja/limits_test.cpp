// Every limit on the work a template may cause (engine/text/jinja/limits.h): each is hit by a
// template written to exceed it, fails at once with a LimitExceeded that names it, and leaves
// room for what stays under it. Without the limits these templates allocate gigabytes, loop for
// hours or overflow the stack.
#include "engine/text/jinja/limits.h"

#include <gtest/gtest.h>
#include <pthread.h>

#include <string>

#include "engine/text/jinja/template.h"

namespace hearth::jinja {
namespace {

std::string render(const std::string& source, const Limits& limits = {}) {
    return Template(source, limits).render({}, std::tm{});
}

// Renders `source` and expects it to stop on the limit called `name`.
void expect_limit(const std::string& source, const std::string& name, const Limits& limits = {}) {
    try {
        render(source, limits);
        ADD_FAILURE() << "rendered without reaching " << name << ": " << source.substr(0, 80);
    } catch (const LimitExceeded& error) {
        EXPECT_NE(std::string(error.what()).find(name), std::string::npos)
            << source.substr(0, 80) << ": " << error.what();
    }
}

std::string repeated(const std::string& text, size_t count) {
    std::string out;
    for (size_t i = 0; i < count; ++i) out += text;
    return out;
}

TEST(Limits, StringsAreSizedBeforeTheyAreBuilt) {
    for (const char* source : {
             "{{ 'x' * 3000000000 }}",
             "{{ 3000000000 * 'x' }}",
             // Doubling by + and by ~: the 27th step passes 64 MiB.
             "{% set ns = namespace(s='x') %}{% for i in range(100) %}"
             "{% set ns.s = ns.s + ns.s %}{% endfor %}",
             "{% set ns = namespace(s='x') %}{% for i in range(100) %}"
             "{% set ns.s = ns.s ~ ns.s %}{% endfor %}",
             "{{ ('x' * 1000).replace('x', 'y' * 1000000) }}",
             "{{ (['y' * 1000000] * 1000) | join }}",
             "{{ (['y' * 1000000] * 1000) | string }}",
             "{{ [[[1]]] | tojson(indent=1000000000) }}",
         })
        expect_limit(source, "max_string_bytes");

    Limits small;
    small.max_string_bytes = 10;
    EXPECT_EQ(render("{{ 'x' * 10 }}", small), "xxxxxxxxxx");
    expect_limit("{{ 'x' * 11 }}", "max_string_bytes", small);
}

TEST(Limits, ListsAreSizedBeforeTheyAreBuilt) {
    for (const char* source : {
             "{{ ([1] * 3000000000) | length }}",
             "{{ ([1, 2] * 1000000) | length }}",
             "{{ (',' * 2000000).split(',') | length }}",
             "{% for c in 'x' * 2000000 %}{% endfor %}",
         })
        expect_limit(source, "max_list_items");

    Limits small;
    small.max_list_items = 1000;
    EXPECT_EQ(render("{{ range(1000) | length }}", small), "1000");
    for (const char* source : {
             "{{ range(1001) | length }}",
             "{{ range(0, 3000000000000, 2) | length }}",
             "{{ ([1] * 600 + [2] * 600) | length }}",
         })
        expect_limit(source, "max_list_items", small);
}

TEST(Limits, TheRenderedTextIsBounded) {
    // 100 MB of output from a short loop.
    expect_limit("{% for i in range(100) %}{{ 'x' * 1000000 }}{% endfor %}", "max_output_bytes");

    Limits small;
    small.max_output_bytes = 1000;
    EXPECT_EQ(render("{% for i in range(100) %}0123456789{% endfor %}", small).size(), 1000u);
    expect_limit("{% for i in range(100) %}0123456789{% endfor %}!", "max_output_bytes", small);
    // A block captured into a variable counts as rendered text too.
    expect_limit("{% set x %}{% for i in range(101) %}0123456789{% endfor %}{% endset %}",
                 "max_output_bytes", small);
}

TEST(Limits, LoopIterationsAreCountedAcrossAllLoops) {
    Limits small;
    small.max_loop_iterations = 1000;
    EXPECT_EQ(
        render("{% for a in range(10) %}{% for b in range(99) %}{% endfor %}{% endfor %}.", small),
        ".");
    expect_limit("{% for a in range(10) %}{% for b in range(100) %}{% endfor %}{% endfor %}",
                 "max_loop_iterations", small);
    // Items a filtered loop skips were still looked at.
    expect_limit("{% for a in range(2000) if false %}{% endfor %}", "max_loop_iterations", small);
}

TEST(Limits, MacroRecursionIsBounded) {
    const std::string countdown =
        "{% macro down(n) %}{% if n > 0 %}{{ down(n - 1) }}{% else %}done{% endif %}{% endmacro %}";
    Limits limits;
    EXPECT_EQ(render(countdown + "{{ down(" + std::to_string(limits.max_call_depth - 1) + ") }}"),
              "done");
    expect_limit(countdown + "{{ down(" + std::to_string(limits.max_call_depth) + ") }}",
                 "max_call_depth");
    expect_limit("{% macro forever() %}{{ forever() }}{% endmacro %}{{ forever() }}",
                 "max_call_depth");
    expect_limit(
        "{% macro m() %}{{ caller() }}{% endmacro %}"
        "{% macro again() %}{% call m() %}{{ again() }}{% endcall %}{% endmacro %}"
        "{{ again() }}",
        "max_call_depth");
}

TEST(Limits, NestingIsBoundedWhileParsing) {
    const auto expect_refused = [](const std::string& source, const std::string& name) {
        try {
            const Template parsed(source);
            ADD_FAILURE() << "parsed: " << source.substr(0, 80);
        } catch (const LimitExceeded& error) {
            EXPECT_NE(std::string(error.what()).find(name), std::string::npos) << error.what();
        }
    };
    for (const std::string& source : {
             "{{ " + repeated("(", 100000) + "1" + repeated(")", 100000) + " }}",
             "{{ " + repeated("-", 100000) + "1 }}",
             "{{ " + repeated("not ", 100000) + "1 }}",
             "{{ " + repeated("[", 100000) + repeated("]", 100000) + " }}",
             repeated("{% if true %}", 100000) + repeated("{% endif %}", 100000),
         })
        expect_refused(source, "max_source_nesting");
    // A chain is parsed by a loop but evaluated, and freed, by recursion: its height counts.
    expect_refused("{{ 1" + repeated(" + 1", 100000) + " }}", "max_nesting_depth");
    expect_refused("{{ x" + repeated(".a", 100000) + " }}", "max_nesting_depth");

    const Limits limits;
    const size_t levels = limits.max_source_nesting - 1;
    EXPECT_EQ(render("{{ " + repeated("(", levels) + "1" + repeated(")", levels) + " + 1" +
                     repeated(" + 1", 100) + " }}"),
              "102");
}

TEST(Limits, NestingIsBoundedWhileRendering) {
    // The parser allows a chain as tall as the limit; rendering adds the levels of the body and
    // of each macro call around it, so the same depth is checked again while evaluating.
    const Limits limits;
    const size_t terms = limits.max_nesting_depth - 2;  // as tall as the parser allows
    EXPECT_EQ(render("{{ 1" + repeated(" + 1", terms - 10) + " }}"), std::to_string(terms - 9));
    expect_limit("{% macro m() %}{{ 1" + repeated(" + 1", terms) +
                     " }}{% endmacro %}"
                     "{% if true %}{% for i in [1] %}{{ m() }}{% endfor %}{% endif %}",
                 "max_nesting_depth");
}

TEST(Limits, NestedValuesAreBoundedWhenPrintedOrDumped) {
    // A namespace that holds itself would print forever.
    expect_limit("{% set ns = namespace() %}{% set ns.me = ns %}{{ ns }}", "max_nesting_depth");
    expect_limit("{% set ns = namespace() %}{% set ns.me = [ns] %}{{ ns | tojson }}",
                 "max_nesting_depth");
    expect_limit(
        "{% set ns = namespace(x=1) %}{% for i in range(2000) %}"
        "{% set ns.x = [ns.x] %}{% endfor %}{{ ns.x == ns.x }}",
        "max_nesting_depth");
}

// Runs `work` on a thread with a 1 MiB stack (a worker thread may have little more), so a
// recursion as deep as a template's values would overflow it whatever the build's frame sizes.
void on_small_stack(void (*work)()) {
    pthread_attr_t attributes;
    pthread_attr_init(&attributes);
    pthread_attr_setstacksize(&attributes, size_t{1} << 20);
    pthread_t thread;
    ASSERT_EQ(pthread_create(
                  &thread, &attributes,
                  [](void* argument) -> void* {
                      reinterpret_cast<void (*)()>(argument)();
                      return nullptr;
                  },
                  reinterpret_cast<void*>(work)),
              0);
    pthread_join(thread, nullptr);
    pthread_attr_destroy(&attributes);
}

// Lists and namespaces a template nests 300,000 deep within its loop limit are freed without
// recursing, both when a loop drops them and when the render ends.
void render_deep_values() {
    const std::string deepen = "{% for i in range(30000) %}{% for j in range(10) %}";
    const std::string done = "{% endfor %}{% endfor %}";
    EXPECT_EQ(render("{% set ns = namespace(x=none) %}" + deepen + "{% set ns.x = [ns.x] %}" +
                     done + "kept"),
              "kept");
    EXPECT_EQ(render("{% set ns = namespace(x=none) %}" + deepen +
                     "{% set ns.x = namespace(y=ns.x) %}" + done + "{% set ns.x = none %}dropped"),
              "dropped");
    EXPECT_EQ(render("{% set ns = namespace(x=none) %}" + deepen + "{% set ns.x = {'a': ns.x} %}" +
                     done + "dict"),
              "dict");
}

TEST(Limits, DeeplyNestedValuesAreFreedWithoutRecursion) {
    on_small_stack(render_deep_values);
}

}  // namespace
}  // namespace hearth::jinja
