#include "bench/decode_paths.h"

#include <fmt/format.h>

#include "bench/statistics.h"
#include "engine/generation/session.h"

namespace hearth::bench {
namespace {

struct Path {
    const char* name;
    GenerationRequest request;
};

// A prompt that repeats itself a little, as chat prompts (quoted code, names) do.
const char* const kPrompt =
    "Once upon a time, there was a little girl named Lily. She loved to play outside. One day, "
    "Lily saw a big red ball in the park. Lily said, \"Can I play with the ball?\"";

}  // namespace

void run_decode_paths(const Model& model, Backend& backend, const BenchOptions& options) {
    const auto tokenizer = make_tokenizer(model.file());
    const auto prompt = tokenizer->encode(kPrompt, {.add_special = true});
    const SamplerSettings sampled{.temperature = 0.8f, .seed = 1};
    const auto grammar = std::make_shared<const JsonGrammar>(JsonSchema::any_object());
    std::vector<Path> paths(4);
    paths[0].name = "greedy";
    paths[0].request.sampler.temperature = 0.0f;
    paths[1].name = "sampled";
    paths[1].request.sampler = sampled;
    paths[2].name = "json";
    paths[2].request.sampler = sampled;
    paths[2].request.grammar = grammar;
    paths[3].name = "speculative";
    paths[3].request.sampler.temperature = 0.0f;
    paths[3].request.speculative = true;

    fmt::print(
        "| path        | tok/s median | min .. max          | tokens | vs sampled | "
        "drafts accepted |\n");
    fmt::print(
        "|-------------|-------------:|---------------------|-------:|-----------:|"
        "----------------:|\n");
    double sampled_rate = 0;
    for (auto& path : paths) {
        path.request.prompt = prompt;
        path.request.max_tokens = options.generate;
        std::vector<double> rates;
        GenerationStats last;
        for (int r = 0; r < options.repetitions; ++r) {
            Session session(backend, *tokenizer,
                            static_cast<int>(prompt.size()) + options.generate + 8);
            path.request.sampler.seed = static_cast<uint64_t>(r + 1);
            last = session.generate(path.request).stats;
            // Whole-generation rate: what a user waits for, first token included.
            const double seconds = last.token_times_ns.empty()
                                       ? 0
                                       : (last.token_times_ns.back() - last.prefill_ns) / 1e9;
            if (seconds > 0) rates.push_back(last.generated_tokens / seconds);
        }
        const auto rate = summarise(rates);
        if (std::string_view(path.name) == "sampled") sampled_rate = rate.median;
        fmt::print(
            "| {:<11} | {:>12.1f} | {:>8.1f} .. {:<8.1f} | {:>6} | {:>10} | {:>15} |\n", path.name,
            rate.median, rate.low, rate.high, last.generated_tokens,
            sampled_rate > 0 ? fmt::format("{:.2f}x", rate.median / sampled_rate) : "",
            last.draft_tokens > 0 ? fmt::format("{:.0f}%", 100 * last.acceptance_rate()) : "");
    }
}

}  // namespace hearth::bench
