// What every compute backend offers the decode loop: per-sequence state (its KV cache, in the
// backend's own layout) and a forward pass over new tokens of a sequence.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "engine/compute/sequence.h"
#include "engine/generation/sampler.h"
#include "engine/model/logit_rows.h"

namespace hearth {

// The decode loop's side of Backend::decode: chooses each token and hears of it in order.
class TokenPicker {
public:
    virtual ~TokenPicker() = default;
    // The token that follows one row of logits.
    virtual int32_t pick(std::span<const float> logits) = 0;
    // Called with each chosen token in order; false ends the run after this token.
    virtual bool accept(int32_t token) = 0;
    // When every choice is a pure function of the logits and these settings (no penalties, no
    // grammar), a device backend may choose on the device and run many steps per submission.
    virtual std::optional<SamplerSettings> device_rule() const { return std::nullopt; }
};

// One sequence's part of a batched forward pass: its new tokens and the logits it wants.
struct BatchRow {
    std::span<const int32_t> tokens;
    Sequence* sequence = nullptr;
    LogitRows rows = LogitRows::Last;
};

class Backend {
public:
    virtual ~Backend() = default;
    virtual std::string name() const = 0;
    virtual std::unique_ptr<Sequence> create_sequence(int capacity) = 0;
    // Runs `tokens` after what `sequence` holds; logits row after row (vocab floats each).
    // Throws ContextFullError, leaving the sequence as it was, when they do not fit.
    virtual std::vector<float> forward(std::span<const int32_t> tokens, Sequence& sequence,
                                       LogitRows rows) = 0;
    // Runs every row's tokens after its own sequence, as forward() does for each, and returns
    // each row's logits, row for row; no sequence may appear twice. Each row's numbers are
    // exactly those forward() gives it alone. A row that does not fit its context is refused
    // (ContextFullError) before any row runs. This version runs the rows one by one; the CPU
    // backend reads the weights once for all of them.
    virtual std::vector<std::vector<float>> forward_batch(std::span<const BatchRow> rows);
    // Throws std::invalid_argument when a batch names one sequence twice.
    static void check_distinct(std::span<const BatchRow> rows);
    // The prefill step sizes this backend has prepared, for the prefill planner.
    virtual std::vector<int> chunk_sizes() const { return {1, 8, 64}; }
    // How many prompt tokens the decode loop hands to one forward call: 0 for one planner step
    // per call (progress and cancel between steps cost nothing on the CPU); a device backend
    // asks for more, so its steps go to the device back to back with one wait at the end.
    virtual int prefill_batch_tokens() const { return 0; }

    // Up to `count` decode steps: feeds `input`, picks the next token from its logits, feeds
    // that, and so on, until the picker declines a token. Returns how many tokens were
    // accepted; the sequence then holds `input` and every accepted token but the last, which is
    // the next input. This version runs step by step; a device backend records many steps per
    // submission (choosing on the device when the picker allows it), keeps the next submission
    // in flight while the picker hears of the previous one, and rolls the sequence back past
    // a declined token. Throws ContextFullError when `count` steps do not fit.
    virtual int decode(Sequence& sequence, int32_t input, int count, TokenPicker& picker);
};

}  // namespace hearth
