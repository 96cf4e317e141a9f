#include "app/cli_remote.h"

#include <fmt/format.h>

#include <cstdlib>
#include <ostream>
#include <stdexcept>

#include "app/read_file.h"
#include "engine/remote/remote_client.h"
#include "engine/remote/remote_error.h"

namespace hearth {
namespace {

remote::RemoteEndpoint endpoint(const CliOptions& options) {
    remote::RemoteEndpoint endpoint{.base_url = options.remote_url,
                                    .trusted_certificate = options.trust_certificate};
    if (!options.api_key_env.empty()) {
        const char* key = std::getenv(options.api_key_env.c_str());
        if (key == nullptr) {
            throw std::invalid_argument("--api-key-env names " + options.api_key_env +
                                        ", which is not set");
        }
        endpoint.api_key = key;
    }
    return endpoint;
}

ChatRequest chat_request(const CliOptions& options) {
    ChatRequest request{.max_tokens = options.max_tokens.value_or(128),
                        .sampler = options.sampler,
                        .fresh_seed = !options.seed_given,
                        .json_mode = options.json,
                        .enable_thinking = options.enable_thinking,
                        .reasoning_effort = options.reasoning_effort,
                        .stop_strings = options.stop_strings};
    if (!options.json_schema_file.empty())
        request.json_schema = read_file(options.json_schema_file);
    if (!options.system_prompt.empty())
        request.messages.push_back({"system", options.system_prompt});
    request.messages.push_back({"user", options.prompt});
    return request;
}

void print_figures(const remote::RemoteAnswer& answer, std::ostream& log) {
    const GenerationStats& stats = answer.result.stats;
    log << fmt::format(
        "\nprompt tokens: {} ({} cached) | time to first token: {:.2f} ms | generated: {} "
        "tokens | decode: {:.1f} tok/s | finish: {}\n",
        stats.prompt_tokens, stats.cached_tokens, stats.time_to_first_token_ns / 1e6,
        stats.generated_tokens, stats.decode_tokens_per_second(),
        answer.finish_reason.empty() ? std::string(stop_reason_name(stats.stop_reason))
                                     : answer.finish_reason);
    if (!answer.settings_as_extensions.empty()) {
        log << fmt::format("sent as extensions some servers ignore: {}\n",
                           fmt::join(answer.settings_as_extensions, ", "));
    }
    if (!answer.settings_not_sent.empty()) {
        log << fmt::format("not sent (the API has no field; the server applies its own): {}\n",
                           fmt::join(answer.settings_not_sent, ", "));
    }
}

}  // namespace

int run_remote(const CliOptions& options, std::ostream& out, std::ostream& log) {
    remote::RemoteClient client(endpoint(options));
    if (options.list_models) {
        for (const std::string& id : client.models()) out << id << '\n';
        return 0;
    }
    const GenerationSink sink{.on_chunk = [&out](const TokenChunk& chunk) {
        out << chunk.text << std::flush;
        return true;
    }};
    try {
        const remote::RemoteAnswer answer = client.chat(options.model_path, chat_request(options),
                                                        sink, nullptr, !options.no_stream);
        if (!answer.result.reasoning.empty()) {
            log << "reasoning: " << answer.result.reasoning << '\n';
        }
        out << std::endl;
        print_figures(answer, log);
    } catch (const remote::RemoteError& error) {
        if (!error.partial.text.empty()) {
            out << std::endl;
            log << fmt::format("(the answer above is incomplete: {} tokens arrived)\n",
                               error.partial.stats.token_times_ns.size());
        }
        throw;
    }
    return 0;
}

}  // namespace hearth
