// hearth-cli: generate text, or dump logits, from the command line.
#include <fmt/format.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <cstdio>
#include <iostream>
#include <random>

#include "app/bundled_model.h"
#include "app/cli_download.h"
#include "app/cli_modes.h"
#include "app/cli_options.h"
#include "app/cli_remote.h"
#include "app/logits_dump.h"
#include "app/phrasing/notice_text.h"
#include "app/read_file.h"
#include "engine/compute/backend_factory.h"
#include "engine/compute/vulkan/device.h"
#include "engine/grammar/json_schema.h"
#include "engine/runtime/engine.h"
#include "engine/text/jinja/value.h"
#include "packaging/build_info.h"

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
    if (stats.reasoning_tokens > 0) {
        fmt::print(stderr, " | reasoning: {} tokens, {:.2f} s", stats.reasoning_tokens,
                   stats.reasoning_ns / 1e9);
    }
    if (stats.draft_tokens > 0) {
        fmt::print(stderr, " | drafts: {} accepted of {} ({:.0f}%)", stats.accepted_draft_tokens,
                   stats.draft_tokens, 100.0 * stats.acceptance_rate());
    }
    fmt::print(stderr, "\n");
    if (!result.notices.empty()) fmt::print(stderr, "{}\n", hearth::notices_text(result.notices));
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

hearth::BackendPreference backend_preference(const hearth::CliOptions& options) {
    auto preference = hearth::parse_backend_preference(options.backend);
    if (options.device) preference.device = options.device;
    preference.threads = options.threads;
    preference.kv_cache = options.kv_cache;
    preference.fall_back_to_cpu = false;  // a device named on the command line is meant
    return preference;
}

hearth::GenerationRequest generation_request(const hearth::CliOptions& options,
                                             hearth::Engine& engine, int context) {
    const hearth::DecodeSettings decode{.speculative = options.speculative,
                                        .chunk_tokens = options.chunk_tokens};
    hearth::GenerationRequest request;
    if (options.mode == hearth::CliMode::Chat) {
        hearth::ChatRequest chat{.context_length = context,
                                 .max_tokens = options.max_tokens.value_or(128),
                                 .sampler = options.sampler,
                                 .fresh_seed = !options.seed_given,
                                 .overflow = hearth::OverflowPolicy::Stop,
                                 .enable_thinking = options.enable_thinking,
                                 .reasoning_effort = options.reasoning_effort};
        if (!options.system_prompt.empty())
            chat.messages.push_back({"system", options.system_prompt});
        chat.messages.push_back({"user", options.prompt});
        if (options.enable_thinking && !engine.chat_template().has_thinking_switch()) {
            spdlog::warn(
                "--think has no effect: the model's chat template does not read "
                "enable_thinking");
        }
        if (options.reasoning_effort && !engine.chat_template().has_reasoning_effort()) {
            spdlog::warn(
                "--reasoning-effort has no effect: the model's chat template does not read "
                "reasoning_effort");
        }
        request = engine.chat_generation_request(chat, decode, context);
        const bool plain = !engine.chat_template().has_template();
        spdlog::info("chat prompt: {} tokens{}", request.prompt.size(),
                     plain ? " (the model has no chat template: plain continuation)" : "");
        if (plain) std::cout << options.prompt << std::flush;
    } else {
        request.max_tokens = options.max_tokens.value_or(128);
        request.sampler = options.sampler;
        if (!options.seed_given) request.sampler.seed = std::random_device{}();
        request.speculative = decode.speculative;
        request.handoff.chunk_tokens = decode.chunk_tokens;
        if (options.prompt_ids.empty()) {
            std::cout << options.prompt << std::flush;
            request.prompt = engine.tokenizer().encode(
                options.prompt, {.add_special = true, .parse_special = false});
        } else {
            request.prompt = options.prompt_ids;
        }
    }
    request.stop_strings = options.stop_strings;
    if (options.json) {
        request.grammar = std::make_shared<const hearth::JsonGrammar>(
            options.json_schema_file.empty()
                ? hearth::JsonSchema::any_object()
                : hearth::JsonSchema::parse(hearth::read_file(options.json_schema_file)));
    }
    return request;
}

int run_generation(const hearth::CliOptions& options) {
    hearth::Engine engine(
        {.backends = {.self_test_model = hearth::find_bundled_model().value_or(""),
                      .pipeline_cache = hearth::default_pipeline_cache()},
         .backend = backend_preference(options)});
    engine.load(hearth::model_or_bundled(options), {}, options.context_length);
    if (!options.draft_path.empty()) {
        engine.load_draft(options.draft_path);
        if (!options.sampler.greedy())
            spdlog::warn("--draft drafts for greedy answers (--temp 0) only");
    }
    const auto report = engine.backend_report();
    spdlog::info("backend: {}", report.name);
    if (report.notice) spdlog::warn("{}", hearth::notice_text(*report.notice));
    const int context = engine.context_length(options.context_length);
    if (options.mode == hearth::CliMode::DumpLogits) {
        std::cout << hearth::dump_logits_json(engine.model(), engine.backend(), options.prompt_ids,
                                              options.dump_logits, options.max_tokens.value_or(0),
                                              context);
        return 0;
    }
    const auto request = generation_request(options, engine, context);
    // The model's reasoning goes to stderr, so that stdout holds the answer alone.
    const hearth::GenerationSink sink{.on_chunk = [](const hearth::TokenChunk& chunk) {
        std::cerr << chunk.reasoning << std::flush;
        std::cout << chunk.text << std::flush;
        return true;
    }};
    const auto result = engine.generate(0, context, request, sink);
    std::cout << std::endl;
    print_stats(result, request.sampler.seed);
    return 0;
}

int run(const hearth::CliOptions& options) {
    if (!options.remote_url.empty()) return hearth::run_remote(options, std::cout, std::cerr);
    switch (options.mode) {
        case hearth::CliMode::Tokenize:
            return hearth::run_tokenize(options, std::cin, std::cout);
        case hearth::CliMode::Detokenize:
            return hearth::run_detokenize(options, std::cin, std::cout);
        case hearth::CliMode::RenderTemplate:
            return hearth::run_render_template(options, std::cout);
        case hearth::CliMode::ListDevices:
            return list_devices();
        case hearth::CliMode::Download:
            return hearth::run_download(options, std::cout, std::cerr);
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
        if (options.version) {
            std::cout << "hearth-cli " << hearth::build_info::kVersionLine << '\n';
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
        fmt::print(stderr, "hearth-cli: {}\n", hearth::error_text(error));
        return 1;
    }
}
