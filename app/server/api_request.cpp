#include "app/server/api_request.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <stdexcept>

#include "app/server/api_error.h"
#include "app/server/json_fields.h"
#include "app/server/json_text.h"
#include "engine/text/chat_json.h"
#include "engine/text/jinja/json.h"
#include "engine/text/utf8_buffer.h"

namespace hearth::server {
namespace {

using jinja::Value;

// OpenAI's default for /v1/completions, which clients rely on when they send none.
constexpr int kDefaultCompletionTokens = 16;

// Every string in the body, keys included, must be UTF-8: the template, the tokenizer and the
// JSON written back all assume it, and \ud800-style escapes decode to invalid bytes too.
void require_utf8(const Value& value, const std::string& path) {
    if (value.is_string()) {
        if (!is_valid_utf8(value.as_string())) {
            throw ApiError::invalid_request(
                (path.empty() ? std::string("the body") : path) + " is not valid UTF-8",
                path.empty() ? std::nullopt : std::optional<std::string>(path));
        }
    } else if (value.is_array()) {
        const auto& items = value.as_array();
        for (size_t i = 0; i < items.size(); ++i) {
            require_utf8(items[i], path + "[" + std::to_string(i) + "]");
        }
    } else if (value.is_object()) {
        for (const auto& [key, member] : value.as_object().entries()) {
            const std::string member_path = path.empty() ? key : path + "." + key;
            if (!is_valid_utf8(key)) {
                throw ApiError::invalid_request((path.empty() ? std::string("the body") : path) +
                                                " has a key that is not valid UTF-8");
            }
            require_utf8(member, member_path);
        }
    }
}

Value parse_body(std::string_view body) {
    Value root;
    try {
        root = jinja::parse_json(body);
    } catch (const std::invalid_argument& error) {
        throw ApiError::invalid_request(std::string("the request body is not valid JSON: ") +
                                        error.what());
    }
    require_utf8(root, "");
    return root;
}

// The path a chat_json message starts with ("messages[2].content must be a string").
std::string leading_path(const std::string& message) {
    return message.substr(0, message.find(' '));
}

ResponseMode read_mode(const JsonFields& fields) {
    ResponseMode mode;
    mode.model = fields.string("model");
    mode.stream = fields.boolean("stream").value_or(false);
    if (const auto options = fields.object("stream_options")) {
        mode.include_usage = options->boolean("include_usage").value_or(false);
    }
    return mode;
}

void read_sampler(const JsonFields& fields, SamplerSettings& sampler, bool& fresh_seed) {
    const auto as_float = [](double value) { return static_cast<float>(value); };
    if (const auto temperature = fields.number("temperature", 0.0, 2.0)) {
        sampler.temperature = as_float(*temperature);
    }
    if (const auto top_p = fields.number("top_p", 0.0, 1.0)) sampler.top_p = as_float(*top_p);
    if (const auto top_k = fields.integer("top_k", 0, std::numeric_limits<int>::max())) {
        sampler.top_k = static_cast<int>(*top_k);
    }
    if (const auto min_p = fields.number("min_p", 0.0, 1.0)) sampler.min_p = as_float(*min_p);
    if (const auto presence = fields.number("presence_penalty", -2.0, 2.0)) {
        sampler.presence_penalty = as_float(*presence);
    }
    if (const auto frequency = fields.number("frequency_penalty", -2.0, 2.0)) {
        sampler.frequency_penalty = as_float(*frequency);
    }
    // Any 64-bit integer, negative ones as their bits: the same seed always samples the same.
    const auto seed = fields.integer("seed", std::numeric_limits<int64_t>::min(),
                                     std::numeric_limits<int64_t>::max());
    fresh_seed = !seed.has_value();
    if (seed) sampler.seed = static_cast<uint64_t>(*seed);
}

std::vector<std::string> read_stop(const JsonFields& fields, const RequestLimits& limits) {
    const Value* stop = fields.find("stop");
    if (!stop) return {};
    if (stop->is_string()) {
        if (stop->as_string().empty()) fields.fail("stop", "must not be empty");
        return {stop->as_string()};
    }
    if (!stop->is_array()) fields.fail("stop", "must be a string or a list of strings");
    const auto& items = stop->as_array();
    if (items.size() > limits.max_stop_strings) {
        fields.fail("stop", fmt::format("may hold at most {} strings, not {}",
                                        limits.max_stop_strings, items.size()));
    }
    std::vector<std::string> strings;
    for (size_t i = 0; i < items.size(); ++i) {
        const std::string key = fmt::format("stop[{}]", i);
        if (!items[i].is_string()) fields.fail(key, "must be a string");
        if (items[i].as_string().empty()) fields.fail(key, "must not be empty");
        strings.push_back(items[i].as_string());
    }
    return strings;
}

int read_max_tokens(const JsonFields& fields, const RequestLimits& limits, int fallback) {
    // max_completion_tokens is the newer name; a client sending both means it.
    for (const char* key : {"max_completion_tokens", "max_tokens"}) {
        if (const auto tokens = fields.integer(key, 1, limits.context_length)) {
            return static_cast<int>(*tokens);
        }
    }
    return std::min(fallback, limits.context_length);
}

// Several answers per request (n, best_of) would each need a row of their own.
void require_one(const JsonFields& fields, const std::string& key) {
    const auto count = fields.integer(key, 1, std::numeric_limits<int64_t>::max());
    if (count && *count != 1)
        fields.fail(key, "must be 1: this server gives one answer per request");
}

// Features whose answer Hearth cannot give: asked for, they are refused, not ignored.
void refuse_unsupported(const JsonFields& fields) {
    require_one(fields, "n");
    if (fields.boolean("logprobs").value_or(false)) {
        fields.fail("logprobs", "is not supported by this server");
    }
    if (const Value* top = fields.find("top_logprobs");
        top && !(top->is_int() && top->as_int() == 0)) {
        fields.fail("top_logprobs", "is not supported by this server");
    }
    if (const Value* bias = fields.find("logit_bias");
        bias && !(bias->is_object() && bias->as_object().size() == 0)) {
        fields.fail("logit_bias", "is not supported by this server");
    }
}

void read_response_format(const JsonFields& fields, ChatRequest& request) {
    const auto format = fields.object("response_format");
    if (!format) return;
    const auto type = format->string("type");
    if (!type) format->fail("type", "is missing");
    if (*type == "text") return;
    if (*type == "json_object") {
        request.json_mode = true;
        return;
    }
    if (*type != "json_schema") {
        format->fail("type",
                     "must be \"text\", \"json_object\" or \"json_schema\", not \"" + *type + "\"");
    }
    // OpenAI nests the schema ({"json_schema": {"name", "schema"}}); other clients send it flat
    // ({"schema": {...}}). Both mean the same.
    std::optional<JsonFields> holder = format->object("json_schema");
    if (!holder) holder = format;
    const Value* schema = holder->find("schema");
    if (!schema) holder->fail("schema", "is missing");
    if (!schema->is_object()) holder->fail("schema", "must be an object (a JSON Schema)");
    request.json_schema = compact_json(*schema);
}

// What both endpoints share: sampling, limits, stop strings, JSON mode.
ChatRequest read_options(const JsonFields& fields, const RequestLimits& limits,
                         int default_max_tokens) {
    refuse_unsupported(fields);
    ChatRequest request;
    request.overflow = OverflowPolicy::Stop;
    request.max_tokens = read_max_tokens(fields, limits, default_max_tokens);
    read_sampler(fields, request.sampler, request.fresh_seed);
    request.stop_strings = read_stop(fields, limits);
    read_response_format(fields, request);
    return request;
}

std::vector<ChatMessage> read_messages(const JsonFields& fields, const RequestLimits& limits) {
    const Value* messages = fields.find("messages");
    if (!messages) fields.fail("messages", "is missing");
    if (!messages->is_array()) fields.fail("messages", "must be a list of messages");
    const size_t count = messages->as_array().size();
    if (count == 0) fields.fail("messages", "must hold at least one message");
    if (count > limits.max_messages) {
        fields.fail("messages", fmt::format("may hold at most {} messages, not {}",
                                            limits.max_messages, count));
    }
    try {
        return parse_chat_messages(*messages);
    } catch (const std::invalid_argument& error) {
        throw ApiError::invalid_request(error.what(), leading_path(error.what()));
    }
}

void read_tools(const JsonFields& fields, ChatRequest& request) {
    const Value* tools = fields.find("tools");
    const auto choice = fields.find("tool_choice");
    if (choice && !(choice->is_string() &&
                    (choice->as_string() == "auto" || choice->as_string() == "none"))) {
        fields.fail("tool_choice", "may only be \"auto\" or \"none\" on this server");
    }
    if (!tools || (choice && choice->as_string() == "none")) return;
    try {
        request.tools = parse_tool_definitions(*tools);
    } catch (const std::invalid_argument& error) {
        throw ApiError::invalid_request(error.what(), leading_path(error.what()));
    }
}

void read_reasoning_effort(const JsonFields& fields, ChatRequest& request) {
    const auto effort = fields.string("reasoning_effort");
    if (!effort) return;
    if (*effort != "low" && *effort != "medium" && *effort != "high") {
        fields.fail("reasoning_effort", "must be \"low\", \"medium\" or \"high\"");
    }
    request.reasoning_effort = effort;
}

std::string read_prompt(const JsonFields& fields) {
    const Value* prompt = fields.find("prompt");
    if (!prompt) fields.fail("prompt", "is missing");
    if (prompt->is_string()) return prompt->as_string();
    // A list asks for one answer per prompt; one prompt in a list is the same as the string.
    if (prompt->is_array() && prompt->as_array().size() == 1 && prompt->as_array()[0].is_string()) {
        return prompt->as_array()[0].as_string();
    }
    fields.fail("prompt", "must be a string (or a list holding one string)");
}

void refuse_completion_extras(const JsonFields& fields) {
    if (fields.boolean("echo").value_or(false)) {
        fields.fail("echo", "is not supported by this server");
    }
    if (const auto suffix = fields.string("suffix"); suffix && !suffix->empty()) {
        fields.fail("suffix", "is not supported by this server");
    }
    require_one(fields, "best_of");
}

// vLLM's extension, which Hearth's own window sends to continue an unfinished answer: the final
// assistant message is carried on, not closed and answered anew. add_generation_prompt (sent
// with it) only says the same again.
void read_continuation(const JsonFields& fields, ChatRequest& request) {
    if (!fields.boolean("continue_final_message").value_or(false)) return;
    if (request.messages.back().role != "assistant") {
        fields.fail("continue_final_message", "needs the last message to be the assistant's");
    }
    request.continue_final_message = true;
}

}  // namespace

ChatCompletionCall parse_chat_completion(std::string_view body, const RequestLimits& limits) {
    const Value root = parse_body(body);
    const JsonFields fields(root, "");
    ChatCompletionCall call;
    call.mode = read_mode(fields);
    call.request = read_options(fields, limits, limits.context_length);
    call.request.messages = read_messages(fields, limits);
    read_continuation(fields, call.request);
    read_tools(fields, call.request);
    read_reasoning_effort(fields, call.request);
    return call;
}

TextCompletionCall parse_text_completion(std::string_view body, const RequestLimits& limits) {
    const Value root = parse_body(body);
    const JsonFields fields(root, "");
    refuse_completion_extras(fields);
    TextCompletionCall call;
    call.mode = read_mode(fields);
    call.request.options = read_options(fields, limits, kDefaultCompletionTokens);
    call.request.prompt = read_prompt(fields);
    return call;
}

}  // namespace hearth::server
