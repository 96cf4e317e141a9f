#include "engine/generation/prefill.h"

#include "engine/generation/prefill_planner.h"

namespace hearth {

std::optional<std::vector<float>> run_prefill(Backend& backend, Sequence& sequence,
                                              std::span<const int32_t> tokens,
                                              const PrefillHooks& hooks) {
    const int total = static_cast<int>(tokens.size());
    const auto calls = group_prefill_steps(plan_prefill(total, 0, backend.chunk_sizes()),
                                           backend.prefill_batch_tokens());
    std::vector<float> logits;
    for (size_t c = 0; c < calls.size(); ++c) {
        if (hooks.proceed && !hooks.proceed()) return std::nullopt;
        const bool last = c + 1 == calls.size();
        logits = backend.forward(tokens.subspan(static_cast<size_t>(calls[c].start),
                                                static_cast<size_t>(calls[c].tokens)),
                                 sequence, last ? LogitRows::Last : LogitRows::None);
        if (hooks.progress && !hooks.progress(calls[c].start + calls[c].tokens, total))
            return std::nullopt;
    }
    return logits;
}

}  // namespace hearth
