// hearth-bench: prompt processing and generation speed, time to first token and peak memory,
// median and spread over repetitions, as a table or JSON.
//   hearth-bench -m MODEL.gguf [-p 64,512] [-n 128] [-r 5] [-t THREADS]
//                [--backend cpu|vulkan [--device N]] [--kv-type f16|q8_0] [--json]
//   hearth-bench -m MODEL.gguf --decode-paths [-n 128] [-r 5]: the decode loop's paths compared
#include <fmt/format.h>
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>

#include "bench/bench_options.h"
#include "bench/decode_paths.h"
#include "bench/draft_speculation.h"
#include "bench/statistics.h"
#include "engine/compute/backend_factory.h"
#include "engine/compute/vulkan/vulkan_backend.h"
#include "engine/generation/sampler.h"
#include "engine/model/cpu_load_options.h"
#include "engine/model/model.h"
#include "engine/model/model_info.h"
#include "engine/runtime/speed_measurement.h"

namespace {

using hearth::bench::summarise;
using hearth::bench::Summary;

long peak_rss_mib() {
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return usage.ru_maxrss / 1024;
}

// Weight bytes one decoded token reads, from the file's tensor directory: every tensor once
// (matrices, norms, biases), one more embedding row, and of a mixture of experts' stacked experts
// only the chosen ones' slices (the active bytes). The KV cache adds its rows per layer and
// position on top. The numerator of the decode roofline.
size_t bytes_per_token(const hearth::Model& model) {
    const bool tied = model.file().find_tensor("output.weight") == nullptr;
    size_t total = 0;
    for (const auto& tensor : model.file().tensors()) {
        if (tensor.name == "token_embd.weight") {
            // One row per token; tied, it is the output matrix too, read whole.
            total += tensor.bytes / tensor.rows() + (tied ? tensor.bytes : 0);
        } else {
            total += hearth::active_share(tensor, model.config(), tensor.bytes);
        }
    }
    return total;
}

// How the text output says the roofline counts only the chosen experts: empty for a dense model.
std::string experts_read(const hearth::ModelConfig& config) {
    if (!config.mixture_of_experts()) return {};
    return fmt::format(", active bytes: {} of {} experts", config.experts_used,
                       config.expert_count);
}

}  // namespace

int main(int argc, char** argv) {
    try {
        const auto options = hearth::bench::parse_bench_options(argc, argv);
        // The CPU backend reads the layout the engine loads for it, unless asked for the file's.
        hearth::MapOptions load;
        if (options.backend == "cpu" && !options.file_layout) {
            load = hearth::cpu_load_options(load, options.isa.empty()
                                                      ? hearth::kernels::best_isa()
                                                      : hearth::kernels::parse_isa(options.isa));
        }
        const auto model = hearth::Model::load(options.model_path, load);
        const auto backend =
            hearth::make_backend({.name = options.backend,
                                  .threads = options.threads,
                                  .isa = options.isa,
                                  .device = options.device,
                                  .pipeline_cache = hearth::default_pipeline_cache(),
                                  .kv_cache = options.kv_cache},
                                 *model);
        if (!options.draft_path.empty()) {
            hearth::bench::run_draft_speculation(*model, *backend, options);
            return 0;
        }
        if (options.decode_paths) {
            hearth::bench::run_decode_paths(*model, *backend, options);
            return 0;
        }
        const int vocab = model->config().vocab_size;
        struct Row {
            std::string test;
            Summary rate;
            Summary first_token_ms;
        };
        std::vector<Row> rows;
        // The engine's one definition of ppN@dD and tgN@dD (the dashboard's button uses it too),
        // as llama-bench's -d means both: after D cached tokens.
        const std::string depth_suffix =
            options.depth > 0 ? fmt::format("@d{}", options.depth) : std::string();
        for (const int size : options.prompt_sizes) {
            std::vector<double> rates, first_token;
            for (int r = 0; r < options.repetitions; ++r) {
                const double elapsed = hearth::time_prompt(*backend, vocab, size, options.depth);
                rates.push_back(size / elapsed);
                first_token.push_back(elapsed * 1e3);
            }
            rows.push_back({fmt::format("pp{}{}", size, depth_suffix), summarise(rates),
                            summarise(first_token)});
        }
        if (options.generate > 0) {
            std::vector<double> rates;
            for (int r = 0; r < options.repetitions; ++r) {
                rates.push_back(options.generate / hearth::time_generation(*backend, vocab,
                                                                           options.generate,
                                                                           options.depth));
            }
            rows.push_back(
                {fmt::format("tg{}{}", options.generate, depth_suffix), summarise(rates), {}});
        }
        const long rss = peak_rss_mib();
        if (options.json) {
            fmt::print(
                "{{\"model\": \"{}\", \"file_bytes\": {}, \"bytes_per_token\": {}, "
                "\"expert_count\": {}, \"experts_used\": {}, \"backend\": \"{}\", "
                "\"repetitions\": {}, \"peak_rss_mib\": {}, \"results\": [",
                options.model_path, model->file().file_size(), bytes_per_token(*model),
                model->config().expert_count, model->config().experts_used, backend->name(),
                options.repetitions, rss);
            for (size_t i = 0; i < rows.size(); ++i) {
                fmt::print(
                    "{}{{\"test\": \"{}\", \"tokens_per_second\": {{\"median\": {:.2f}, \"min\": "
                    "{:.2f}, \"max\": {:.2f}}}",
                    i ? ", " : "", rows[i].test, rows[i].rate.median, rows[i].rate.low,
                    rows[i].rate.high);
                if (rows[i].test.starts_with("pp")) {
                    fmt::print(
                        ", \"time_to_first_token_ms\": {{\"median\": {:.2f}, \"min\": {:.2f}, "
                        "\"max\": {:.2f}}}",
                        rows[i].first_token_ms.median, rows[i].first_token_ms.low,
                        rows[i].first_token_ms.high);
                }
                fmt::print("}}");
            }
            fmt::print("]}}\n");
            return 0;
        }
        fmt::print(
            "model: {} ({:.1f} MiB, {:.1f} MiB read per decoded token{}), backend: {}, {} "
            "repetitions, peak RSS {} MiB\n",
            options.model_path, model->file().file_size() / 1048576.0,
            bytes_per_token(*model) / 1048576.0, experts_read(model->config()), backend->name(),
            options.repetitions, rss);
        if (auto* device = dynamic_cast<hearth::VulkanBackend*>(backend.get())) {
            fmt::print("device: {:.1f} MiB of weights, {} dispatches per decoded token\n",
                       device->weight_bytes() / 1048576.0, device->dispatches_per_token());
        }
        fmt::print(
            "| test        | tok/s median | min .. max        | first token ms (median) |\n");
        fmt::print(
            "|-------------|-------------:|-------------------|------------------------:|\n");
        for (const auto& row : rows) {
            fmt::print(
                "| {:<11} | {:>12.2f} | {:>7.2f} .. {:<7.2f} | {:>23} |\n", row.test,
                row.rate.median, row.rate.low, row.rate.high,
                row.test.starts_with("pp") ? fmt::format("{:.2f}", row.first_token_ms.median) : "");
        }
        return 0;
    } catch (const std::invalid_argument& error) {
        fmt::print(
            stderr,
            "hearth-bench: {}\nusage: hearth-bench -m MODEL.gguf [-p 64,512] [-n 128] [-d 0] [-r "
            "5] [-t THREADS] [--isa scalar|avx2|avx512-vnni] [--file-layout] [--backend cpu|vulkan "
            "[--device N]] "
            "[--kv-type f16|q8_0] [--json] [--decode-paths]\n",
            error.what());
        return 2;
    } catch (const std::exception& error) {
        fmt::print(stderr, "hearth-bench: {}\n", error.what());
        return 1;
    }
}
