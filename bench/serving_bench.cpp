// hearth-serve-bench: the batch scheduler's throughput in process (no HTTP): for each number of
// concurrent streams, every stream asks for the same number of tokens from its own short
// prompt at once, and the table gives the aggregate generated tokens per second two ways (end
// to end: all tokens over the wall time from the first request to the last token; decode: the
// tokens that came after every stream had its first, over the time from then to the last
// token, which leaves the prompts' prefill out as hearth-bench's tg does) and each stream's time
// to its first token, median and worst. Rounds interleave the stream counts so the machine's swings
// hit them alike; medians over rounds.
//   hearth-serve-bench -m MODEL.gguf [--streams 1,2,4,8,16] [-n 64] [-t THREADS] [-r 3]
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <map>
#include <numeric>
#include <string>
#include <thread>
#include <vector>

#include "bench/statistics.h"
#include "engine/serving/batch_scheduler.h"

namespace {

using Clock = std::chrono::steady_clock;
using hearth::bench::summarise;

struct Options {
    std::string model;
    std::vector<int> streams{1, 2, 4, 8, 16};
    int tokens = 64;
    int threads = 2;
    int rounds = 3;
};

std::vector<int> parse_list(const std::string& text) {
    std::vector<int> values;
    size_t start = 0;
    while (start <= text.size()) {
        const size_t comma = std::min(text.find(',', start), text.size());
        values.push_back(std::stoi(text.substr(start, comma - start)));
        start = comma + 1;
    }
    return values;
}

Options parse(int argc, char** argv) {
    Options options;
    for (int i = 1; i < argc; ++i) {
        const std::string flag = argv[i];
        const auto value = [&]() -> std::string {
            if (i + 1 >= argc) throw std::invalid_argument(flag + " needs a value");
            return argv[++i];
        };
        if (flag == "-m") {
            options.model = value();
        } else if (flag == "--streams") {
            options.streams = parse_list(value());
        } else if (flag == "-n") {
            options.tokens = std::stoi(value());
        } else if (flag == "-t") {
            options.threads = std::stoi(value());
        } else if (flag == "-r") {
            options.rounds = std::stoi(value());
        } else {
            throw std::invalid_argument("unknown option " + flag);
        }
    }
    if (options.model.empty()) throw std::invalid_argument("-m MODEL.gguf is required");
    return options;
}

struct Round {
    double tokens_per_second = 0;
    double decode_tokens_per_second = 0;
    std::vector<double> first_token_ms;
};

// When a stream's chunks came (ms from the round's start) and how many tokens each carried.
struct Arrival {
    double ms;
    size_t tokens;
};

// Reads a stream to its end; returns the tokens it generated and notes when each chunk came.
int read_stream(hearth::RequestStream& stream, Clock::time_point start,
                std::vector<Arrival>& arrivals) {
    for (;;) {
        auto event = stream.next(std::chrono::minutes(10));
        if (!event) throw std::runtime_error("a stream stalled");
        if (const auto* chunk = std::get_if<hearth::TokenChunk>(&*event)) {
            if (!chunk->tokens.empty()) {
                arrivals.push_back(
                    {std::chrono::duration<double, std::milli>(Clock::now() - start).count(),
                     chunk->tokens.size()});
            }
        } else if (const auto* result = std::get_if<hearth::GenerationResult>(&*event)) {
            return result->stats.generated_tokens;
        } else {
            std::rethrow_exception(std::get<std::exception_ptr>(*event));
        }
    }
}

Round run_round(hearth::Engine& engine, int streams, int tokens) {
    hearth::BatchScheduler scheduler(engine, {.rows = streams, .context_length = 512});
    const auto start = Clock::now();
    std::vector<std::shared_ptr<hearth::RequestStream>> requests;
    for (int s = 0; s < streams; ++s) {
        requests.push_back(scheduler.submit(hearth::CompletionRequest{
            .prompt = fmt::format("Stream {} begins a story about", s),
            .options = {
                .max_tokens = tokens, .sampler = {.temperature = 0.0f}, .fresh_seed = false}}));
    }
    // Each stream is read on its own thread, as each client of a server reads its own.
    std::vector<std::vector<Arrival>> arrivals(requests.size());
    std::vector<int> generated(requests.size());
    std::vector<std::exception_ptr> errors(requests.size());
    std::vector<std::thread> readers;
    for (size_t s = 0; s < requests.size(); ++s) {
        readers.emplace_back([&, s] {
            try {
                generated[s] = read_stream(*requests[s], start, arrivals[s]);
            } catch (...) {
                errors[s] = std::current_exception();
            }
        });
    }
    for (auto& reader : readers) reader.join();
    for (const auto& error : errors) {
        if (error) std::rethrow_exception(error);
    }
    const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
    Round round;
    round.tokens_per_second = std::accumulate(generated.begin(), generated.end(), 0) / seconds;
    double all_decoding = 0, last = 0;
    for (const auto& stream : arrivals) {
        if (stream.empty()) throw std::runtime_error("a stream generated nothing");
        round.first_token_ms.push_back(stream.front().ms);
        all_decoding = std::max(all_decoding, stream.front().ms);
        last = std::max(last, stream.back().ms);
    }
    size_t decoded = 0;
    for (const auto& stream : arrivals) {
        for (const auto& arrival : stream)
            decoded += arrival.ms > all_decoding ? arrival.tokens : 0;
    }
    if (last > all_decoding)
        round.decode_tokens_per_second = decoded * 1000.0 / (last - all_decoding);
    return round;
}

}  // namespace

int main(int argc, char** argv) {
    try {
        const auto options = parse(argc, argv);
        hearth::Engine engine({.backend = {.kind = hearth::BackendPreference::Kind::Cpu,
                                           .threads = options.threads}});
        engine.load(options.model);
        std::map<int, std::vector<double>> rates, decode_rates, first_median, first_worst;
        for (int r = 0; r < options.rounds; ++r) {
            for (const int streams : options.streams) {
                auto round = run_round(engine, streams, options.tokens);
                rates[streams].push_back(round.tokens_per_second);
                decode_rates[streams].push_back(round.decode_tokens_per_second);
                const auto first = summarise(round.first_token_ms);
                first_median[streams].push_back(first.median);
                first_worst[streams].push_back(first.high);
            }
        }
        fmt::print("{} on {}, {} tokens per stream, median of {} rounds\n", options.model,
                   engine.backend().name(), options.tokens, options.rounds);
        fmt::print(
            "| streams | end-to-end tok/s | × one stream | decode tok/s | × one stream | TTFT "
            "median ms | TTFT worst ms |\n");
        fmt::print("|---:|---:|---:|---:|---:|---:|---:|\n");
        const double one = summarise(rates[options.streams.front()]).median;
        const double one_decoding = summarise(decode_rates[options.streams.front()]).median;
        for (const int streams : options.streams) {
            const double rate = summarise(rates[streams]).median;
            const double decode_rate = summarise(decode_rates[streams]).median;
            fmt::print("| {} | {:.1f} | {:.2f} | {:.1f} | {:.2f} | {:.0f} | {:.0f} |\n", streams,
                       rate, rate / one, decode_rate, decode_rate / one_decoding,
                       summarise(first_median[streams]).median,
                       summarise(first_worst[streams]).median);
        }
        return 0;
    } catch (const std::exception& error) {
        fmt::print(stderr, "hearth-serve-bench: {}\n", error.what());
        return 1;
    }
}
