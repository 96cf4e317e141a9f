#include "app/server/api_request.h"

#include <gtest/gtest.h>

#include "app/server/api_error.h"
#include "engine/text/jinja/json.h"

namespace hearth::server {
namespace {

const RequestLimits kLimits{.context_length = 256, .max_messages = 4, .max_stop_strings = 3};

ChatCompletionCall chat(const std::string& body) {
    return parse_chat_completion(body, kLimits);
}

// The ApiError a body is refused with (a test failure when it is accepted).
ApiError refusal(const std::string& body, bool completion = false) {
    try {
        if (completion) {
            parse_text_completion(body, kLimits);
        } else {
            chat(body);
        }
    } catch (const ApiError& error) {
        return error;
    }
    ADD_FAILURE() << "accepted: " << body;
    return ApiError::invalid_request("accepted");
}

constexpr const char* kHello = R"("messages":[{"role":"user","content":"Hello"}])";

std::string with_hello(const std::string& fields) {
    return "{" + std::string(kHello) + (fields.empty() ? "" : "," + fields) + "}";
}

TEST(ApiRequest, ReadsEveryChatField) {
    const auto call = chat(R"({
        "model": "stories260K", "stream": true, "stream_options": {"include_usage": true},
        "messages": [{"role": "system", "content": "Be brief."},
                     {"role": "user", "content": [{"type": "text", "text": "Hi"}]}],
        "max_tokens": 40, "temperature": 0.5, "top_p": 0.9, "top_k": 12, "min_p": 0.1,
        "seed": 42, "stop": ["\n\n", "END"], "presence_penalty": 0.5,
        "frequency_penalty": -0.25, "n": 1, "reasoning_effort": "low",
        "user": "ignored", "metadata": {"x": "y"}})");
    EXPECT_EQ(call.mode.model, "stories260K");
    EXPECT_TRUE(call.mode.stream);
    EXPECT_TRUE(call.mode.include_usage);
    const ChatRequest& request = call.request;
    ASSERT_EQ(request.messages.size(), 2u);
    EXPECT_EQ(request.messages[0].role, "system");
    EXPECT_EQ(request.messages[1].content, "Hi");
    EXPECT_EQ(request.max_tokens, 40);
    EXPECT_EQ(request.sampler.temperature, 0.5f);
    EXPECT_EQ(request.sampler.top_p, 0.9f);
    EXPECT_EQ(request.sampler.top_k, 12);
    EXPECT_EQ(request.sampler.min_p, 0.1f);
    EXPECT_EQ(request.sampler.seed, 42u);
    EXPECT_FALSE(request.fresh_seed);
    EXPECT_EQ(request.stop_strings, (std::vector<std::string>{"\n\n", "END"}));
    EXPECT_EQ(request.sampler.presence_penalty, 0.5f);
    EXPECT_EQ(request.sampler.frequency_penalty, -0.25f);
    EXPECT_EQ(request.reasoning_effort, "low");
    EXPECT_EQ(request.overflow, OverflowPolicy::Stop);
    EXPECT_FALSE(request.json_mode);
    EXPECT_FALSE(request.json_schema.has_value());
}

// vLLM's continue_final_message carries an unfinished answer on; asked of a conversation that
// does not end with an answer, it is refused, naming the field.
TEST(ApiRequest, ContinuesTheFinalAssistantMessageWhenAsked) {
    EXPECT_FALSE(chat(with_hello("")).request.continue_final_message);
    const auto call = chat(R"({"messages":[{"role":"user","content":"Hello"},)"
                           R"({"role":"assistant","content":"Once upon"}],)"
                           R"("continue_final_message":true,"add_generation_prompt":false})");
    EXPECT_TRUE(call.request.continue_final_message);
    EXPECT_EQ(refusal(with_hello(R"("continue_final_message":true)")).param(),
              "continue_final_message");
}

TEST(ApiRequest, DefaultsLeaveTheEngineSettingsAndAskForAFreshSeed) {
    const auto call = chat(with_hello(""));
    EXPECT_FALSE(call.mode.model.has_value());
    EXPECT_FALSE(call.mode.stream);
    EXPECT_FALSE(call.mode.include_usage);
    EXPECT_TRUE(call.request.fresh_seed);
    EXPECT_EQ(call.request.max_tokens, kLimits.context_length);  // until the context is full
    const SamplerSettings defaults;
    EXPECT_EQ(call.request.sampler.temperature, defaults.temperature);
    EXPECT_EQ(call.request.sampler.top_k, defaults.top_k);
    EXPECT_TRUE(call.request.stop_strings.empty());
    // null means "not given", as OpenAI's clients send it.
    EXPECT_TRUE(
        chat(with_hello(R"("seed":null,"stop":null,"temperature":null)")).request.fresh_seed);
}

TEST(ApiRequest, MaxCompletionTokensIsTheNewerNameAndWins) {
    EXPECT_EQ(chat(with_hello(R"("max_completion_tokens":7)")).request.max_tokens, 7);
    EXPECT_EQ(chat(with_hello(R"("max_tokens":9,"max_completion_tokens":7)")).request.max_tokens,
              7);
}

TEST(ApiRequest, TemperatureZeroIsGreedyAndNegativeSeedsKeepTheirBits) {
    const auto call = chat(with_hello(R"("temperature":0,"seed":-1)"));
    EXPECT_TRUE(call.request.sampler.greedy());
    EXPECT_EQ(call.request.sampler.seed, ~uint64_t{0});
}

TEST(ApiRequest, AStopStringAloneIsAList) {
    EXPECT_EQ(chat(with_hello(R"("stop":"###")")).request.stop_strings,
              (std::vector<std::string>{"###"}));
}

TEST(ApiRequest, ResponseFormatJsonObjectAndBothSchemaShapes) {
    EXPECT_TRUE(chat(with_hello(R"("response_format":{"type":"json_object"})")).request.json_mode);
    EXPECT_FALSE(chat(with_hello(R"("response_format":{"type":"text"})")).request.json_mode);
    const std::string schema = R"({"type":"object","properties":{"a":{"type":"integer"}}})";
    const auto nested = chat(with_hello(R"("response_format":{"type":"json_schema",
        "json_schema":{"name":"answer","strict":true,"schema":)" +
                                        schema + "}}"));
    const auto flat =
        chat(with_hello(R"("response_format":{"type":"json_schema","schema":)" + schema + "}"));
    ASSERT_TRUE(nested.request.json_schema.has_value());
    EXPECT_EQ(*nested.request.json_schema, schema);
    EXPECT_EQ(flat.request.json_schema, nested.request.json_schema);
}

TEST(ApiRequest, ToolsReachTheTemplateUnlessToolChoiceIsNone) {
    const std::string tools =
        R"("tools":[{"type":"function","function":{"name":"now","parameters":{"type":"object"}}}])";
    const auto call = chat(with_hello(tools));
    ASSERT_TRUE(call.request.tools.is_array());
    EXPECT_EQ(call.request.tools.as_array().size(), 1u);
    EXPECT_TRUE(chat(with_hello(tools + R"(,"tool_choice":"none")")).request.tools.is_none());
    EXPECT_EQ(refusal(with_hello(R"("tools":[{"type":"function","function":{}}])")).param(),
              "tools[0].function.name");
    EXPECT_EQ(refusal(with_hello(tools + R"(,"tool_choice":"required")")).param(), "tool_choice");
}

TEST(ApiRequest, MalformedJsonIsRefusedWithWhereItBroke) {
    const ApiError error = refusal(R"({"messages": [)");
    EXPECT_EQ(error.status(), 400);
    EXPECT_NE(std::string(error.what()).find("not valid JSON"), std::string::npos);
    EXPECT_NE(std::string(error.what()).find("byte"), std::string::npos);
    EXPECT_EQ(refusal("[1, 2]").status(), 400);  // not an object
    EXPECT_EQ(refusal("").status(), 400);
}

TEST(ApiRequest, WrongTypesNameTheFieldPath) {
    const std::pair<std::string, std::string> cases[] = {
        {R"("temperature":"hot")", "temperature"},
        {R"("max_tokens":1.5)", "max_tokens"},
        {R"("max_tokens":true)", "max_tokens"},
        {R"("stream":"yes")", "stream"},
        {R"("stream_options":{"include_usage":1})", "stream_options.include_usage"},
        {R"("stop":[1])", "stop[0]"},
        {R"("stop":{"a":1})", "stop"},
        {R"("seed":"1")", "seed"},
        {R"("model":3)", "model"},
        {R"("response_format":{"type":"json_schema","json_schema":{"schema":[]}})",
         "response_format.json_schema.schema"},
        {R"("response_format":{"type":"json_schema"})", "response_format.schema"},
        {R"("response_format":{"type":"xml"})", "response_format.type"},
        {R"("response_format":"json")", "response_format"},
        {R"("reasoning_effort":"max")", "reasoning_effort"},
    };
    for (const auto& [fields, param] : cases) {
        const ApiError error = refusal(with_hello(fields));
        EXPECT_EQ(error.status(), 400) << fields;
        EXPECT_EQ(error.param(), param) << fields;
        EXPECT_EQ(std::string(error.what()).rfind(param, 0), 0u) << error.what();
    }
    EXPECT_EQ(refusal(R"({"messages":[{"role":"user","content":5}]})").param(),
              "messages[0].content");
    EXPECT_EQ(refusal(R"({"messages":[{"role":"robot","content":"x"}]})").param(),
              "messages[0].role");
}

TEST(ApiRequest, RangesAreChecked) {
    for (const char* fields :
         {R"("temperature":2.5)", R"("temperature":-1)", R"("top_p":1.5)", R"("min_p":-0.1)",
          R"("top_k":-3)", R"("presence_penalty":3)", R"("frequency_penalty":-2.5)",
          R"("max_tokens":0)", R"("max_tokens":-5)", R"("max_tokens":100000000)",
          R"("max_completion_tokens":257)"}) {
        EXPECT_EQ(refusal(with_hello(fields)).status(), 400) << fields;
    }
    // The limit is the context: a huge max_tokens names it.
    const ApiError huge = refusal(with_hello(R"("max_tokens":100000000)"));
    EXPECT_NE(std::string(huge.what()).find("256"), std::string::npos) << huge.what();
    EXPECT_EQ(chat(with_hello(R"("max_tokens":256)")).request.max_tokens, 256);
}

TEST(ApiRequest, WhatCannotBeHonouredIsRefusedNotIgnored) {
    EXPECT_EQ(refusal(with_hello(R"("n":2)")).param(), "n");
    EXPECT_EQ(refusal(with_hello(R"("logprobs":true)")).param(), "logprobs");
    EXPECT_EQ(refusal(with_hello(R"("top_logprobs":3)")).param(), "top_logprobs");
    EXPECT_EQ(refusal(with_hello(R"("logit_bias":{"50256":-100})")).param(), "logit_bias");
    EXPECT_NO_THROW(chat(with_hello(R"("n":1,"logprobs":false,"logit_bias":{})")));
}

TEST(ApiRequest, MessagesAreRequiredAndBounded) {
    EXPECT_EQ(refusal("{}").param(), "messages");
    EXPECT_EQ(refusal(R"({"messages":[]})").param(), "messages");
    EXPECT_EQ(refusal(R"({"messages":"Hello"})").param(), "messages");
    const std::string five =
        R"({"messages":[{"role":"user","content":"1"},{"role":"assistant","content":"2"},)"
        R"({"role":"user","content":"3"},{"role":"assistant","content":"4"},)"
        R"({"role":"user","content":"5"}]})";
    const ApiError error = refusal(five);
    EXPECT_EQ(error.param(), "messages");
    EXPECT_NE(std::string(error.what()).find("at most 4"), std::string::npos);
    EXPECT_EQ(refusal(with_hello(R"("stop":["a","b","c","d"])")).param(), "stop");
    EXPECT_EQ(refusal(with_hello(R"("stop":"")")).param(), "stop");
}

TEST(ApiRequest, InvalidUtf8IsRefusedWhereverItIs) {
    const ApiError raw = refusal("{\"messages\":[{\"role\":\"user\",\"content\":\"\xff\xfe\"}]}");
    EXPECT_EQ(raw.param(), "messages[0].content");
    EXPECT_NE(std::string(raw.what()).find("UTF-8"), std::string::npos);
    // An escaped lone surrogate decodes to bytes that are not UTF-8 either.
    EXPECT_EQ(refusal(R"({"messages":[{"role":"user","content":"\ud800"}]})").param(),
              "messages[0].content");
    EXPECT_EQ(refusal(with_hello("\"st\xc3\":1")).status(), 400);  // a key
    // Real non-ASCII text passes.
    EXPECT_EQ(chat(R"({"messages":[{"role":"user","content":"h\u00e9llo \ud83d\ude00 ж"}]})")
                  .request.messages[0]
                  .content,
              "h\xc3\xa9llo \xf0\x9f\x98\x80 \xd0\xb6");
}

TEST(ApiRequest, ReadsACompletion) {
    const auto call = parse_text_completion(
        R"({"model":"m","prompt":"Once upon a time","max_tokens":5,"temperature":0,"stream":true,
            "stop":"\n","seed":7})",
        kLimits);
    EXPECT_EQ(call.request.prompt, "Once upon a time");
    EXPECT_EQ(call.request.options.max_tokens, 5);
    EXPECT_TRUE(call.request.options.sampler.greedy());
    EXPECT_EQ(call.request.options.stop_strings, (std::vector<std::string>{"\n"}));
    EXPECT_EQ(call.request.options.overflow, OverflowPolicy::Stop);
    EXPECT_FALSE(call.request.options.fresh_seed);
    EXPECT_TRUE(call.mode.stream);
    EXPECT_EQ(call.mode.model, "m");
    // OpenAI's default for completions is 16 tokens; a list holding one prompt is that prompt.
    const auto listed = parse_text_completion(R"({"prompt":["Hi"]})", kLimits);
    EXPECT_EQ(listed.request.options.max_tokens, 16);
    EXPECT_EQ(listed.request.prompt, "Hi");
}

TEST(ApiRequest, CompletionRefusals) {
    EXPECT_EQ(refusal("{}", true).param(), "prompt");
    EXPECT_EQ(refusal(R"({"prompt":["a","b"]})", true).param(), "prompt");
    EXPECT_EQ(refusal(R"({"prompt":[1,2,3]})", true).param(), "prompt");
    EXPECT_EQ(refusal(R"({"prompt":"x","echo":true})", true).param(), "echo");
    EXPECT_EQ(refusal(R"({"prompt":"x","suffix":"y"})", true).param(), "suffix");
    EXPECT_EQ(refusal(R"({"prompt":"x","best_of":3})", true).param(), "best_of");
    EXPECT_EQ(refusal(R"({"prompt":"x","n":2})", true).param(), "n");
}

}  // namespace
}  // namespace hearth::server
