// hearth-cli: generate text, or dump logits, from the command line.
#include <fmt/format.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <cstdio>
#include <iostream>
#include <random>

#include "app/bundled_model.h"
#include "app/cli_modes.h"
#include "app/cli_options.h"
#include "app/logits_dump.h"
#include "app/read_file.h"
#include "engine/compute/backend_factory.h"
#include "engine/compute/vulkan/device.h"
#include "engine/generation/session.h"
#include "engine/grammar/json_schema.h"
#include "engine/model/model.h"
#include "engine/text/chat_prompt.h"
#include "engine/text/jinja/value.h"
#include "engine/text/tokenizer.h"

namespace {

void print_stats(const hearth::GenerationResult& result, uint64_t seed) {
    const auto& stats = result.stats;
    fmt::print(
        stderr,
        "\nprompt tokens: {} ({} cached, {} prefilled) | prefill: {:.2f} ms ({:.1f} tok/s) | "
        "time to first token: {:.2f} ms | generated: {} tokens | decode: {:.1f} tok/s | "
        "stop: {} | seed: {}",
        stats.prompt_tokens, stats.cached_tokens, stats.prefilled_tokens, stats.prefill_ns / 1e6,
        stats.prefill_tokens_per_second(), stats.time_to_first_token_ns / 1e6,
        stats.generated_tokens, stats.decode_tokens_per_second(),
        hearth::stop_reason_name(stats.stop_reason), seed);
    if (stats.draft_tokens > 0) {
        fmt::print(stderr, " | drafts: {} accepted of {} ({:.0f}%)", stats.accepted_draft_tokens,
                   stats.draft_tokens, 100.0 * stats.acceptance_rate());
    }
    fmt::print(stderr, "\n");
    if (!result.notice.empty()) fmt::print(stderr, "{}\n", result.notice);
}

std::vector<int32_t> prompt_tokens(const hearth::CliOptions& options, const hearth::Model& model,
                                   const hearth::Tokenizer& tokenizer) {
    if (options.mode == hearth::CliMode::Chat) {
        std::vector<hearth::ChatMessage> messages;
        if (!options.system_prompt.empty()) messages.push_back({"system", options.system_prompt});
        messages.push_back({"user", options.prompt});
        const auto chat = hearth::ChatTemplate::from_model(model.file(), tokenizer.vocabulary());
        const auto prompt = hearth::build_chat_prompt(chat, tokenizer, messages, {});
        spdlog::info(
            "chat prompt: {} tokens{}", prompt.tokens.size(),
            chat.has_template() ? "" : " (the model has no chat template: plain continuation)");
        if (!chat.has_template()) std::cout << options.prompt << std::flush;
        return prompt.tokens;
    }
    if (!options.prompt_ids.empty()) return options.prompt_ids;
    std::cout << options.prompt << std::flush;
    return tokenizer.encode(options.prompt, {.add_special = true, .parse_special = false});
}

int list_devices() {
    const auto devices = hearth::vulkan::list_devices();
    if (devices.empty()) std::cout << "no Vulkan devices\n";
    for (const auto& device : devices) {
        std::cout << fmt::format("{}: {} ({}; subgroup {}{}, storage buffers up to {} MiB)\n",
                                 device.index, device.name, device.type_name(),
                                 device.subgroup_size,
                                 device.subgroup_arithmetic ? " with arithmetic" : "",
                                 device.max_storage_buffer_range >> 20);
    }
    return 0;
}

int run_generation(const hearth::CliOptions& options) {
    const auto model = hearth::Model::load(hearth::model_or_bundled(options));
    const auto backend = hearth::make_backend({.name = options.backend,
                                               .threads = options.threads,
                                               .device = options.device,
                                               .pipeline_cache = hearth::default_pipeline_cache()},
                                              *model);
    spdlog::info("backend: {}", backend->name());
    const int context = options.context_length > 0
                            ? options.context_length
                            : hearth::default_context_length(model->config());
    if (options.mode == hearth::CliMode::DumpLogits) {
        std::cout << hearth::dump_logits_json(*model, *backend, options.prompt_ids,
                                              options.dump_logits, options.max_tokens.value_or(0),
                                              context);
        return 0;
    }
    const auto tokenizer = hearth::make_tokenizer(model->file());
    hearth::GenerationRequest request;
    request.max_tokens = options.max_tokens.value_or(128);
    request.sampler = options.sampler;
    if (!options.seed_given) request.sampler.seed = std::random_device{}();
    request.stop_strings = options.stop_strings;
    request.speculative = options.speculative;
    request.handoff.chunk_tokens = options.chunk_tokens;
    if (options.json) {
        request.grammar = std::make_shared<const hearth::JsonGrammar>(
            options.json_schema_file.empty()
                ? hearth::JsonSchema::any_object()
                : hearth::JsonSchema::parse(hearth::read_file(options.json_schema_file)));
    }
    request.prompt = prompt_tokens(options, *model, *tokenizer);

    hearth::Session session(*backend, *tokenizer, context);
    const hearth::GenerationSink sink{.on_chunk = [](const hearth::TokenChunk& chunk) {
        std::cout << chunk.text << std::flush;
        return true;
    }};
    const auto result = session.generate(request, sink);
    std::cout << std::endl;
    print_stats(result, request.sampler.seed);
    return 0;
}

int run(const hearth::CliOptions& options) {
    switch (options.mode) {
        case hearth::CliMode::Tokenize:
            return hearth::run_tokenize(options, std::cin, std::cout);
        case hearth::CliMode::Detokenize:
            return hearth::run_detokenize(options, std::cin, std::cout);
        case hearth::CliMode::RenderTemplate:
            return hearth::run_render_template(options, std::cout);
        case hearth::CliMode::ListDevices:
            return list_devices();
        default:
            return run_generation(options);
    }
}

}  // namespace

int main(int argc, char** argv) {
    // stdout carries only the generated text (or JSON); logs go to stderr.
    spdlog::set_default_logger(spdlog::stderr_color_mt("hearth"));
    spdlog::set_pattern("%l: %v");
    try {
        const auto options =
            hearth::parse_cli_options(std::vector<std::string>(argv + 1, argv + argc));
        if (options.help) {
            std::cout << hearth::cli_usage();
            return 0;
        }
        return run(options);
    } catch (const hearth::jinja::TemplateRaised& error) {
        fmt::print(stderr, "hearth-cli: the chat template refused the conversation: {}\n",
                   error.what());
        return 1;
    } catch (const std::invalid_argument& error) {
        fmt::print(stderr, "hearth-cli: {}\n\n{}", error.what(), hearth::cli_usage());
        return 2;
    } catch (const std::exception& error) {
        fmt::print(stderr, "hearth-cli: {}\n", error.what());
        return 1;
    }
}
