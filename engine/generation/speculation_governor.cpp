#include "engine/generation/speculation_governor.h"

#include <algorithm>

namespace hearth {
namespace {

// Recent work weighs most: a moving average over roughly the last four measurements.
constexpr double kWeight = 0.25;

double moving_average(double average, double sample) {
    return average == 0.0 ? sample : average + kWeight * (sample - average);
}

}  // namespace

void SpeculationGovernor::decoded_plainly(int tokens, double seconds) {
    if (tokens <= 0) return;
    m_plain_seconds_per_token = moving_average(m_plain_seconds_per_token, seconds / tokens);
    if (m_paused_tokens > 0) {
        m_paused_tokens = std::max(0, m_paused_tokens - tokens);
        if (m_paused_tokens == 0) m_passes = 0;  // drafting starts over, judged afresh
    }
}

void SpeculationGovernor::verified(int tokens, double seconds) {
    if (tokens <= 0) return;
    m_verify_seconds_per_token = moving_average(m_verify_seconds_per_token, seconds / tokens);
    ++m_passes;
    judge();
}

void SpeculationGovernor::judge() {
    if (m_passes < kPassesToJudge || m_paused_tokens > 0) return;
    if (m_plain_seconds_per_token == 0.0) {
        m_paused_tokens = kProbeTokens;  // drafts left no gap to time plain decoding in
        return;
    }
    if (m_verify_seconds_per_token > kMargin * m_plain_seconds_per_token) {
        m_paused_tokens = m_cooldown;
        m_cooldown = std::min(2 * m_cooldown, kLongestCooldown);
    } else {
        m_cooldown = kFirstCooldown;
    }
}

}  // namespace hearth
