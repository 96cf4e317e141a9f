// Chooses the next token from logits. Deterministic: the same settings, seed and logits give the
// same tokens on every machine (its random generator and float-to-uniform step are our own).
#pragma once

#include <cstdint>
#include <deque>
#include <span>
#include <utility>
#include <vector>

namespace hearth {

struct SamplerSettings {
    float temperature = 0.8f;        // 0 or less: greedy (argmax)
    int top_k = 40;                  // 0: off
    float top_p = 0.95f;             // 1: off
    float min_p = 0.05f;             // 0: off; relative to the most likely token
    float repeat_penalty = 1.0f;     // 1: off; divides positive logits, multiplies negative ones
    float presence_penalty = 0.0f;   // subtracted once from every token in the window
    float frequency_penalty = 0.0f;  // subtracted per occurrence in the window
    int penalty_window = 64;         // how many recent tokens the penalties look at
    uint64_t seed = 0;

    bool greedy() const { return temperature <= 0.0f; }
};

// xoshiro256** seeded through splitmix64: small, fast, and specified bit for bit.
class Random final {
public:
    explicit Random(uint64_t seed);
    uint64_t next();
    double uniform();  // [0, 1)

private:
    uint64_t m_state[4];
};

class Sampler final {
public:
    explicit Sampler(const SamplerSettings& settings);

    // Picks a token from `logits` (one per vocabulary entry), given the recent history.
    int32_t sample(std::span<const float> logits);
    // Records a token that entered the sequence (prompt or generated), for the penalties.
    void accept(int32_t token);
    void reset();

    const SamplerSettings& settings() const { return m_settings; }

private:
    void apply_penalties(std::vector<float>& logits) const;
    int32_t draw(const std::vector<float>& logits);

    SamplerSettings m_settings;
    Random m_random;
    std::deque<int32_t> m_recent;
    std::vector<float> m_logits;                          // scratch
    std::vector<std::pair<float, int32_t>> m_candidates;  // scratch
};

// Index of the largest logit, the lowest id among equals.
int32_t argmax(std::span<const float> logits);

}  // namespace hearth
