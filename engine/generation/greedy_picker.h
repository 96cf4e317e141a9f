// Greedy decoding through Backend::decode, for checks and benchmarks that need no sampler: the
// argmax, chosen on the device where the backend can (chain decode), on the host otherwise.
#pragma once

#include <functional>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "engine/compute/backend.h"
#include "engine/generation/sampler.h"

namespace hearth {

class GreedyPicker final : public TokenPicker {
public:
    // `on_token`, told how many tokens came so far, ends the run by returning false.
    explicit GreedyPicker(std::function<bool(int count)> on_token = {})
        : m_on_token(std::move(on_token)) {}

    int32_t pick(std::span<const float> logits) override { return argmax(logits); }
    bool accept(int32_t token) override {
        m_tokens.push_back(token);
        return !m_on_token || m_on_token(static_cast<int>(m_tokens.size()));
    }
    std::optional<SamplerSettings> device_rule() const override {
        return SamplerSettings{.temperature = 0.0f};
    }
    const std::vector<int32_t>& tokens() const { return m_tokens; }

private:
    std::function<bool(int)> m_on_token;
    std::vector<int32_t> m_tokens;
};

}  // namespace hearth
