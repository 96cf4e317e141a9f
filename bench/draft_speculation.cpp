#include "bench/draft_speculation.h"

#include <fmt/format.h>

#include <chrono>
#include <random>

#include "bench/statistics.h"
#include "engine/compute/backend_factory.h"
#include "engine/generation/model_drafter.h"
#include "engine/generation/prefill.h"
#include "engine/generation/session.h"
#include "engine/runtime/draft_model.h"
#include "engine/runtime/speed_measurement.h"
#include "engine/text/tokenizer.h"

namespace hearth::bench {
namespace {

using Clock = std::chrono::steady_clock;

constexpr int kDepth = 256;  // cached conversation before the measured steps
constexpr int kDraftTokens[] = {1, 2, 4, 8};
constexpr double kAcceptance[] = {0.5, 0.7, 0.9};

double seconds_since(Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
}

// Median seconds of one forward pass of `count` tokens (all rows' logits, as verification
// needs) after kDepth cached tokens.
double pass_seconds(Backend& backend, int vocabulary, int count, int repetitions) {
    auto sequence = backend.create_sequence(kDepth + 16);
    run_prefill(backend, *sequence, speed_test_prompt(kDepth, vocabulary));
    const auto tokens = speed_test_prompt(count, vocabulary);
    std::vector<double> times;
    for (int r = 0; r < repetitions + 1; ++r) {
        const auto start = Clock::now();
        backend.forward(tokens, *sequence, count == 1 ? LogitRows::Last : LogitRows::All);
        if (r > 0) times.push_back(seconds_since(start));  // the first warms caches
        sequence->truncate(kDepth);
    }
    return summarise(times).median;
}

// The draft model's guesses, replaced by the model's own answer at a fixed rate: the draft
// model still runs (its cost is real), only its tokens are overruled.
class ForcedDrafter final : public Drafter {
public:
    ForcedDrafter(std::shared_ptr<Drafter> draft, std::vector<int32_t> answer, size_t prompt,
                  double acceptance, uint64_t seed)
        : m_draft(std::move(draft)),
          m_answer(std::move(answer)),
          m_prompt(prompt),
          m_acceptance(acceptance),
          m_random(seed) {}

    std::vector<int32_t> propose(std::span<const int32_t> history, int max_tokens) override {
        std::vector<int32_t> drafts = m_draft->propose(history, max_tokens);
        const size_t next = history.size() - m_prompt;  // answer index of the first draft
        for (size_t i = 0; i < drafts.size(); ++i) {
            if (next + i >= m_answer.size()) break;
            const int32_t right = m_answer[next + i];
            const bool agree = std::bernoulli_distribution(m_acceptance)(m_random);
            drafts[i] = agree ? right : (right == 1 ? 2 : 1);
        }
        return drafts;
    }

private:
    std::shared_ptr<Drafter> m_draft;
    std::vector<int32_t> m_answer;
    size_t m_prompt;
    double m_acceptance;
    std::mt19937_64 m_random;
};

// Tokens per second of whole greedy answers of `tokens` tokens (prefill excluded).
double answer_rate(Backend& backend, const Tokenizer& tokenizer, GenerationRequest request,
                   GenerationResult* result = nullptr) {
    Session session(backend, tokenizer,
                    static_cast<int>(request.prompt.size()) + request.max_tokens + 16);
    const GenerationResult answer = session.generate(request);
    if (result != nullptr) *result = answer;
    const auto& stats = answer.stats;
    const double seconds = (stats.token_times_ns.back() - stats.prefill_ns) / 1e9;
    return stats.generated_tokens / seconds;
}

}  // namespace

void run_draft_speculation(const Model& model, Backend& backend, const BenchOptions& options) {
    const auto tokenizer = make_tokenizer(model.file());
    const auto draft =
        DraftModel::load(options.draft_path, tokenizer->vocabulary(), options.threads);
    const int vocabulary = model.config().vocab_size;
    const int repetitions = options.repetitions;

    const double step = pass_seconds(backend, vocabulary, 1, repetitions);
    const double draft_step = pass_seconds(*draft->backend, vocabulary, 1, repetitions);
    fmt::print(
        "one decode step after {} tokens: {:.2f} ms; the draft model's: {:.2f} ms "
        "({:.2f} of a step)\n\n",
        kDepth, step * 1e3, draft_step * 1e3, draft_step / step);
    fmt::print(
        "| drafted k | verify pass ms | × one step | projected speed-up at "
        "50% / 70% / 90% per-token agreement |\n|---:|---:|---:|---|\n");
    for (const int k : kDraftTokens) {
        const double verify = pass_seconds(backend, vocabulary, k + 1, repetitions);
        // Per pass: the model emits the accepted prefix plus one token of its own; the expected
        // accepted prefix of k guesses, each right with probability a, is sum a^i, i = 1..k
        // (so the share of drafts accepted is below a). The adaptive draft length is left out:
        // the table is per fixed k.
        std::string projected;
        for (const double a : kAcceptance) {
            double accepted = 0, power = 1;
            for (int i = 0; i < k; ++i) accepted += (power *= a);
            const double cost = verify + k * draft_step;
            projected += fmt::format("{}{:.2f}x", projected.empty() ? "" : " / ",
                                     (accepted + 1) * step / cost);
        }
        fmt::print("| {} | {:.2f} | {:.2f} | {} |\n", k, verify * 1e3, verify / step, projected);
    }

    // Measured, with the draft's guesses forced to agree at each rate.
    GenerationRequest request;
    request.prompt = tokenizer->encode("Once upon a time there was a", {.add_special = true});
    request.max_tokens = options.generate;
    request.sampler.temperature = 0.0f;
    GenerationResult plain;
    std::vector<double> plain_rates;
    for (int r = 0; r < repetitions; ++r) {
        plain_rates.push_back(answer_rate(backend, *tokenizer, request, &plain));
    }
    const double plain_rate = summarise(plain_rates).median;
    fmt::print("\nplain greedy: {:.1f} tok/s ({} tokens)\n", plain_rate,
               plain.stats.generated_tokens);
    fmt::print(
        "| forced per-token agreement | tok/s | × plain | drafts accepted |\n"
        "|---:|---:|---:|---:|\n");
    for (const double a : kAcceptance) {
        std::vector<double> rates;
        GenerationResult drafted;
        for (int r = 0; r < repetitions; ++r) {
            GenerationRequest speculative = request;
            speculative.speculative = true;
            speculative.drafter = std::make_shared<ForcedDrafter>(
                std::make_shared<ModelDrafter>(
                    *draft->backend,
                    static_cast<int>(request.prompt.size()) + request.max_tokens + 16, vocabulary),
                plain.tokens, request.prompt.size(), a, static_cast<uint64_t>(r + 1));
            rates.push_back(answer_rate(backend, *tokenizer, speculative, &drafted));
            if (drafted.tokens != plain.tokens) {
                throw std::runtime_error("a drafted answer differs from plain greedy");
            }
        }
        const double rate = summarise(rates).median;
        fmt::print("| {:.0f}% | {:.1f} | {:.2f}x | {:.0f}% |\n", a * 100, rate, rate / plain_rate,
                   100 * drafted.stats.acceptance_rate());
    }
}

}  // namespace hearth::bench
