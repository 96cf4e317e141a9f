#include "app/cli_modes.h"

#include <fmt/format.h>

#include <iostream>
#include <iterator>
#include <sstream>

#include "app/bundled_model.h"
#include "app/read_file.h"
#include "engine/format/gguf_file.h"
#include "engine/text/chat_json.h"
#include "engine/text/chat_template.h"
#include "engine/text/jinja/json.h"
#include "engine/text/tokenizer.h"

namespace hearth {
namespace {

std::string read_all(std::istream& in) {
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

jinja::Value read_json_file(const std::string& path) {
    try {
        return jinja::parse_json(read_file(path));
    } catch (const std::invalid_argument& error) {
        throw std::runtime_error(path + ": " + error.what());
    }
}

// `parse` applied to the file's JSON, its complaint prefixed with the file's path.
template <typename Parse>
auto parse_json_file_as(const std::string& path, Parse parse) {
    const auto json = read_json_file(path);
    try {
        return parse(json);
    } catch (const std::invalid_argument& error) {
        throw std::runtime_error(path + ": " + error.what());
    }
}

// "2026-11-22T09:30:00" as a broken-down time with its weekday and day of the year filled in.
std::tm parse_time(const std::string& text) {
    std::tm time{};
    int year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0;
    if (std::sscanf(text.c_str(), "%d-%d-%dT%d:%d:%d", &year, &month, &day, &hour, &minute,
                    &second) < 3) {
        throw std::invalid_argument("--now expects a time like 2026-11-22T09:30:00, got '" + text +
                                    "'");
    }
    time.tm_year = year - 1900;
    time.tm_mon = month - 1;
    time.tm_mday = day;
    time.tm_hour = hour;
    time.tm_min = minute;
    time.tm_sec = second;
    const std::time_t stamp = timegm(&time);
    gmtime_r(&stamp, &time);
    return time;
}

}  // namespace

std::filesystem::path model_or_bundled(const CliOptions& options) {
    return options.model_path.empty() ? bundled_model_path()
                                      : std::filesystem::path(options.model_path);
}

int run_tokenize(const CliOptions& options, std::istream& in, std::ostream& out) {
    const auto file = GgufFile::open(model_or_bundled(options));
    const auto tokenizer = make_tokenizer(*file);
    const auto ids = tokenizer->encode(
        read_all(in), {.add_special = options.add_special, .parse_special = options.parse_special});
    out << fmt::format("[{}]\n", fmt::join(ids, ", "));
    return 0;
}

int run_detokenize(const CliOptions& options, std::istream& in, std::ostream& out) {
    const auto file = GgufFile::open(model_or_bundled(options));
    const auto tokenizer = make_tokenizer(*file);
    std::string text = read_all(in);
    for (char& c : text) {
        if (c == '[' || c == ']' || c == ',') c = ' ';
    }
    std::istringstream numbers(text);
    std::vector<int32_t> ids;
    std::string word;
    while (numbers >> word) {
        try {
            ids.push_back(std::stoi(word));
        } catch (const std::exception&) {
            throw std::invalid_argument("--detokenize expects token ids, got '" + word + "'");
        }
        if (!tokenizer->vocabulary().valid(ids.back())) {
            throw std::invalid_argument("token id " + word + " is outside the vocabulary");
        }
    }
    out << tokenizer->decode(ids, true);
    return 0;
}

int run_render_template(const CliOptions& options, std::ostream& out) {
    std::string source, bos, eos;
    if (!options.template_file.empty()) {
        source = read_file(options.template_file);
    } else {
        const auto file = GgufFile::open(model_or_bundled(options));
        const auto vocabulary = Vocabulary::from_gguf(*file);
        source = file->get_string("tokenizer.chat_template").value_or("");
        if (source.empty())
            throw std::runtime_error(file->path().string() + ": the model has no chat template");
        bos = vocabulary.valid(vocabulary.bos) ? vocabulary.tokens[vocabulary.bos] : "";
        eos = vocabulary.valid(vocabulary.eos) ? vocabulary.tokens[vocabulary.eos] : "";
    }
    const ChatTemplate chat(source, options.bos_token.value_or(bos),
                            options.eos_token.value_or(eos));
    ChatRenderOptions render;
    render.add_generation_prompt = options.add_generation_prompt;
    if (!options.vars_file.empty()) {
        const auto vars = read_json_file(options.vars_file);
        if (!vars.is_object())
            throw std::runtime_error(options.vars_file + ": expected a JSON object");
        render.extra_variables = vars.as_object();
    }
    render.enable_thinking = options.enable_thinking;
    render.reasoning_effort = options.reasoning_effort;
    if (!options.tools_file.empty()) {
        render.tools = parse_json_file_as(options.tools_file, parse_tool_definitions);
    }
    if (!options.now.empty()) render.now = parse_time(options.now);
    // The same path as the window's and the server's conversations: OpenAI-shaped messages
    // read into the engine's ChatMessage, then the template's input built from those.
    const auto messages = parse_json_file_as(options.messages_file, parse_chat_messages);
    out << chat.render(messages, render);
    return 0;
}

}  // namespace hearth
