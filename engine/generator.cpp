#include "engine/generator.h"

#include <chrono>
#include <string>

#include "engine/utf8_buffer.h"

namespace hearth {
namespace {

using Clock = std::chrono::steady_clock;

int64_t nanoseconds_since(Clock::time_point start) {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - start).count();
}

}  // namespace

std::string_view stop_reason_name(StopReason reason) {
    switch (reason) {
        case StopReason::EndOfGeneration:
            return "end of generation";
        case StopReason::MaxTokens:
            return "max tokens";
        case StopReason::Cancelled:
            return "cancelled";
        case StopReason::ContextFull:
            return "context full";
    }
    return "unknown";
}

Generator::Generator(Backend& backend, const Tokenizer& tokenizer, int context_length)
    : m_backend(backend),
      m_tokenizer(tokenizer),
      m_sequence(backend.create_sequence(context_length)) {}

GenerationStats Generator::generate(const GenerationRequest& request,
                                    const TokenCallback& on_token) {
    if (request.prompt.empty()) throw std::invalid_argument("the prompt has no tokens");
    if (static_cast<int>(request.prompt.size()) > m_sequence->capacity()) {
        throw ContextFullError("the prompt has " + std::to_string(request.prompt.size()) +
                               " tokens but the context holds only " +
                               std::to_string(m_sequence->capacity()));
    }
    GenerationStats stats;
    stats.prompt_tokens = static_cast<int>(request.prompt.size());
    Sampler sampler(request.sampler);
    for (const int32_t token : request.prompt) sampler.accept(token);
    Utf8Buffer text;

    const auto start = Clock::now();
    m_sequence->truncate(0);
    std::vector<float> logits = m_backend.forward(request.prompt, *m_sequence, LogitRows::Last);
    stats.prefill_ns = nanoseconds_since(start);

    int64_t first_token_ns = 0;
    while (true) {
        if (stats.generated_tokens >= request.max_tokens) {
            stats.stop_reason = StopReason::MaxTokens;
            break;
        }
        const int32_t token = sampler.sample(logits);
        const int64_t now = nanoseconds_since(start);
        if (stats.generated_tokens == 0) first_token_ns = stats.time_to_first_token_ns = now;
        if (m_tokenizer.is_end_of_generation(token)) {
            stats.stop_reason = StopReason::EndOfGeneration;
            break;
        }
        sampler.accept(token);
        ++stats.generated_tokens;
        stats.token_times_ns.push_back(now);
        if (!on_token(token, text.push(m_tokenizer.token_to_piece(token)))) {
            stats.stop_reason = StopReason::Cancelled;
            break;
        }
        if (stats.generated_tokens >= request.max_tokens) {
            stats.stop_reason = StopReason::MaxTokens;
            break;
        }
        if (m_sequence->size() >= m_sequence->capacity()) {
            stats.stop_reason = StopReason::ContextFull;
            break;
        }
        logits = m_backend.forward(std::span(&token, 1), *m_sequence, LogitRows::Last);
    }
    if (!text.empty()) on_token(-1, text.flush());
    if (stats.generated_tokens > 0) stats.decode_ns = nanoseconds_since(start) - first_token_ns;
    return stats;
}

}  // namespace hearth
