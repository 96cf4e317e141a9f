// The Jinja lexer, parser and renderer on arbitrary template text, rendered over a fixed
// conversation with the variables a chat template gets. A template may be refused or may fail
// to render only with a RenderError (its subclasses included: unsupported, raised, over a
// limit); anything else, a hang or exhausted memory included, is a defect.
#include <cstdint>
#include <ctime>
#include <string>
#include <vector>

#include "engine/text/chat_message.h"
#include "engine/text/jinja/template.h"
#include "engine/text/template_messages.h"
#include "tests/fuzz/fuzz_support.h"

namespace {

hearth::jinja::Object fixed_variables() {
    const std::vector<hearth::ChatMessage> conversation{
        {.role = "system", .content = "You are terse."},
        {.role = "user", .content = "What is 2+2? <s>"},
        {.role = "assistant",
         .content = "4",
         .reasoning = "Add them.",
         .tool_calls = {{"call_1", "add", R"({"a": 2, "b": 2})", false}}},
        {.role = "tool", .content = "4", .tool_call_id = "call_1", .name = "add"},
        {.role = "user", .content = "Thanks! \xF0\x9F\x98\x80"},
    };
    hearth::jinja::Object variables;
    variables.set("messages", hearth::template_messages(conversation, {}));
    variables.set("add_generation_prompt", hearth::jinja::Value(true));
    variables.set("bos_token", hearth::jinja::Value("<s>"));
    variables.set("eos_token", hearth::jinja::Value("</s>"));
    variables.set("enable_thinking", hearth::jinja::Value(false));
    hearth::jinja::Object function;
    function.set("name", hearth::jinja::Value("add"));
    function.set("description", hearth::jinja::Value("Adds two numbers"));
    hearth::jinja::Object tool;
    tool.set("type", hearth::jinja::Value("function"));
    tool.set("function", hearth::jinja::Value(std::move(function)));
    variables.set("tools", hearth::jinja::Value(hearth::jinja::Array{hearth::jinja::Value(tool)}));
    return variables;
}

// The defaults let one render loop ten million times and write 64 MiB: seconds of work for one
// input, near the fuzzer's 10 s timeout on a loaded machine. Far smaller limits still let inputs
// reach every limit (each check and LimitExceeded is the same code), and each execution stays
// short.
hearth::jinja::Limits fuzz_limits() {
    hearth::jinja::Limits limits;
    limits.max_output_bytes = size_t{1} << 20;
    limits.max_string_bytes = size_t{1} << 20;
    limits.max_list_items = size_t{1} << 14;
    limits.max_loop_iterations = 100'000;
    return limits;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static const hearth::jinja::Object variables = fixed_variables();
    static const hearth::jinja::Limits limits = fuzz_limits();
    const std::tm now{.tm_mday = 22, .tm_mon = 10, .tm_year = 126};
    const std::string_view source(reinterpret_cast<const char*>(data), size);
    try {
        const hearth::jinja::Template compiled(source, limits);
        compiled.reads("enable_thinking");
        compiled.render(variables, now);
    } catch (const hearth::jinja::RenderError&) {
    }
    return 0;
}
