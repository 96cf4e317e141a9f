// The real chat templates of shared/fixtures/chat_templates over arbitrary conversations: any
// roles, contents (invalid UTF-8 included), reasoning, tool calls and options. The first byte
// picks the template, the second the options, the rest is the conversation (message_codec.h).
// A template may reject a conversation only with a RenderError (raise_exception included).
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <string>
#include <vector>

#include "engine/text/chat_template.h"
#include "tests/fuzz/fuzz_support.h"
#include "tests/fuzz/message_codec.h"

namespace {

hearth::jinja::Value offered_tools() {
    hearth::jinja::Object parameters;
    parameters.set("type", hearth::jinja::Value("object"));
    hearth::jinja::Object function;
    function.set("name", hearth::jinja::Value("get_weather"));
    function.set("description", hearth::jinja::Value("The weather in a city"));
    function.set("parameters", hearth::jinja::Value(std::move(parameters)));
    hearth::jinja::Object tool;
    tool.set("type", hearth::jinja::Value("function"));
    tool.set("function", hearth::jinja::Value(std::move(function)));
    return hearth::jinja::Value(hearth::jinja::Array{hearth::jinja::Value(std::move(tool))});
}

hearth::ChatRenderOptions options_from(uint8_t flags) {
    hearth::ChatRenderOptions options;
    options.add_generation_prompt = (flags & 1) != 0;
    if ((flags & 6) == 2) options.enable_thinking = true;
    if ((flags & 6) == 4) options.enable_thinking = false;
    if ((flags & 8) != 0) options.reasoning_effort = "high";
    if ((flags & 16) != 0) options.tools = offered_tools();
    options.now = std::tm{.tm_mday = 22, .tm_mon = 10, .tm_year = 126};
    return options;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    hearth::fuzz::silence_logs();
    hearth::fuzz::chat_templates();
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    hearth::fuzz::FuzzInput input(data, size);
    const auto& chosen =
        *hearth::fuzz::chat_templates()[input.byte() % hearth::fuzz::chat_templates().size()]
             .compiled;
    const hearth::ChatRenderOptions options = options_from(input.byte());
    const auto messages = hearth::fuzz::decode_messages(input.rest());
    try {
        chosen.render(messages, options);
    } catch (const hearth::jinja::RenderError&) {
    }
    return 0;
}
