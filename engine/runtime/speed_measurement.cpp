#include "engine/runtime/speed_measurement.h"

#include <algorithm>
#include <chrono>

#include "engine/generation/greedy_picker.h"
#include "engine/generation/prefill.h"

namespace hearth {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
}

bool cancelled(const SpeedControl& control) {
    return control.cancel != nullptr && control.cancel->load(std::memory_order_relaxed);
}

void report(const SpeedControl& control, int done, int total) {
    if (control.progress) control.progress(done, total);
}

// Prefills `prompt` into `sequence` as the decode loop does; the last call's logits.
std::vector<float> prefill(Backend& backend, Sequence& sequence, std::span<const int32_t> prompt,
                           const SpeedControl& control) {
    auto logits = run_prefill(backend, sequence, prompt,
                              {.proceed = [&] { return !cancelled(control); },
                               .progress =
                                   [&](int done, int total) {
                                       report(control, done, total);
                                       return true;
                                   }});
    if (!logits) throw SpeedTestCancelled();
    return std::move(*logits);
}

}  // namespace

std::vector<int32_t> speed_test_prompt(int count, int vocab_size) {
    // BOS first, then deterministic pseudo-random ids, as llama-bench does with random tokens.
    std::vector<int32_t> ids{1};
    uint64_t state = 12345;
    const auto spread = static_cast<uint64_t>(std::max(vocab_size - 3, 1));
    while (static_cast<int>(ids.size()) < count) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        ids.push_back(static_cast<int32_t>(3 + (state >> 33) % spread));
    }
    ids.resize(static_cast<size_t>(std::max(count, 0)));
    return ids;
}

double time_prompt(Backend& backend, int vocab_size, int tokens, int depth,
                   const SpeedControl& control) {
    // The cached part and the timed prompt are one synthetic text, so the prompt continues it.
    const auto text = speed_test_prompt(depth + tokens, vocab_size);
    const std::span<const int32_t> context = std::span(text).first(static_cast<size_t>(depth));
    const std::span<const int32_t> prompt = std::span(text).subspan(static_cast<size_t>(depth));
    auto sequence = backend.create_sequence(depth + tokens + 1);
    if (depth > 0) prefill(backend, *sequence, context, {.cancel = control.cancel});
    const auto start = Clock::now();
    prefill(backend, *sequence, prompt, control);
    return seconds_since(start);
}

double time_generation(Backend& backend, int vocab_size, int tokens, int depth,
                       const SpeedControl& control) {
    const auto context = speed_test_prompt(std::max(depth, 1), vocab_size);
    auto sequence = backend.create_sequence(static_cast<int>(context.size()) + tokens + 1);
    const auto logits = prefill(backend, *sequence, context, {.cancel = control.cancel});
    GreedyPicker picker([&](int count) {
        report(control, count, tokens);
        return !cancelled(control);
    });
    const auto start = Clock::now();
    const int decoded = backend.decode(*sequence, argmax(logits), tokens, picker);
    const double seconds = seconds_since(start);
    if (decoded < tokens || cancelled(control)) throw SpeedTestCancelled();
    return seconds;
}

double SpeedMeasurement::prompt_tokens_per_second() const {
    return prompt_seconds > 0 ? prompt_tokens / prompt_seconds : 0.0;
}

double SpeedMeasurement::generation_tokens_per_second() const {
    return generation_seconds > 0 ? generated_tokens / generation_seconds : 0.0;
}

SpeedMeasurement measure_speed(Backend& backend, int vocab_size, int prompt_tokens,
                               int generated_tokens, const SpeedControl& control) {
    const int total = prompt_tokens + generated_tokens;
    SpeedMeasurement measurement{.prompt_tokens = prompt_tokens,
                                 .generated_tokens = generated_tokens};
    measurement.prompt_seconds =
        time_prompt(backend, vocab_size, prompt_tokens, 0,
                    {.cancel = control.cancel,
                     .progress = [&](int done, int) { report(control, done, total); }});
    measurement.generation_seconds = time_generation(
        backend, vocab_size, generated_tokens, 0,
        {.cancel = control.cancel,
         .progress = [&](int done, int) { report(control, prompt_tokens + done, total); }});
    return measurement;
}

}  // namespace hearth
