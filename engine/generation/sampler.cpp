#include "engine/generation/sampler.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <unordered_map>

namespace hearth {
namespace {

uint64_t rotate_left(uint64_t x, int k) {
    return (x << k) | (x >> (64 - k));
}

uint64_t splitmix64(uint64_t& state) {
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

void check(const SamplerSettings& s) {
    if (!std::isfinite(s.temperature) || s.top_k < 0 || !(s.top_p > 0.0f && s.top_p <= 1.0f) ||
        !(s.min_p >= 0.0f && s.min_p <= 1.0f) || !(s.repeat_penalty > 0.0f) ||
        !std::isfinite(s.presence_penalty) || !std::isfinite(s.frequency_penalty) ||
        s.penalty_window < 0) {
        throw std::invalid_argument(
            "invalid sampler settings: temperature must be finite, top-k >= 0, 0 < top-p <= 1, "
            "0 <= min-p <= 1, repeat penalty > 0, penalty window >= 0");
    }
}

}  // namespace

Random::Random(uint64_t seed) {
    for (auto& word : m_state) word = splitmix64(seed);
}

uint64_t Random::next() {
    const uint64_t result = rotate_left(m_state[1] * 5, 7) * 9;
    const uint64_t t = m_state[1] << 17;
    m_state[2] ^= m_state[0];
    m_state[3] ^= m_state[1];
    m_state[1] ^= m_state[2];
    m_state[0] ^= m_state[3];
    m_state[2] ^= t;
    m_state[3] = rotate_left(m_state[3], 45);
    return result;
}

double Random::uniform() {
    return static_cast<double>(next() >> 11) * 0x1.0p-53;
}

int32_t argmax(std::span<const float> logits) {
    if (logits.empty()) throw std::invalid_argument("argmax of no logits");
    size_t best = 0;
    for (size_t i = 1; i < logits.size(); ++i) {
        if (logits[i] > logits[best]) best = i;
    }
    return static_cast<int32_t>(best);
}

Sampler::Sampler(const SamplerSettings& settings) : m_settings(settings), m_random(settings.seed) {
    check(settings);
}

void Sampler::reset() {
    m_random = Random(m_settings.seed);
    m_recent.clear();
}

void Sampler::accept(int32_t token) {
    if (m_settings.penalty_window == 0) return;
    m_recent.push_back(token);
    while (m_recent.size() > static_cast<size_t>(m_settings.penalty_window)) m_recent.pop_front();
}

int32_t Sampler::sample(std::span<const float> logits) {
    m_logits.assign(logits.begin(), logits.end());
    apply_penalties(m_logits);
    if (m_settings.greedy()) return argmax(m_logits);
    return draw(m_logits);
}

void Sampler::apply_penalties(std::vector<float>& logits) const {
    const auto& s = m_settings;
    if (s.repeat_penalty == 1.0f && s.presence_penalty == 0.0f && s.frequency_penalty == 0.0f)
        return;
    std::unordered_map<int32_t, int> counts;
    for (const int32_t token : m_recent) {
        if (token >= 0 && static_cast<size_t>(token) < logits.size()) ++counts[token];
    }
    for (const auto& [token, count] : counts) {
        float& logit = logits[static_cast<size_t>(token)];
        logit = logit > 0.0f ? logit / s.repeat_penalty : logit * s.repeat_penalty;
        logit -= static_cast<float>(count) * s.frequency_penalty + s.presence_penalty;
    }
}

// Truncates by top-k, top-p and min-p (on the untempered distribution, as llama.cpp does), then
// draws from the survivors at the requested temperature.
int32_t Sampler::draw(const std::vector<float>& logits) {
    const auto& s = m_settings;
    m_candidates.clear();
    for (size_t i = 0; i < logits.size(); ++i)
        m_candidates.emplace_back(logits[i], static_cast<int32_t>(i));
    const auto higher = [](const auto& a, const auto& b) {
        return a.first > b.first || (a.first == b.first && a.second < b.second);
    };
    size_t keep = m_candidates.size();
    if (s.top_k > 0 && static_cast<size_t>(s.top_k) < keep) keep = static_cast<size_t>(s.top_k);
    std::partial_sort(m_candidates.begin(), m_candidates.begin() + static_cast<long>(keep),
                      m_candidates.end(), higher);
    m_candidates.resize(keep);

    const float maximum = m_candidates.front().first;
    std::vector<double> probabilities(keep);
    double total = 0.0;
    for (size_t i = 0; i < keep; ++i)
        total += probabilities[i] = std::exp(m_candidates[i].first - maximum);
    double cumulative = 0.0;
    size_t survivors = 0;
    for (; survivors < keep; ++survivors) {
        const double p = probabilities[survivors] / total;
        if (survivors > 0 && p < s.min_p * (probabilities[0] / total)) break;
        cumulative += p;
        if (cumulative >= s.top_p) {
            ++survivors;
            break;
        }
    }
    survivors = std::max<size_t>(survivors, 1);

    double tempered_total = 0.0;
    for (size_t i = 0; i < survivors; ++i) {
        probabilities[i] = std::exp((m_candidates[i].first - maximum) / s.temperature);
        tempered_total += probabilities[i];
    }
    double threshold = m_random.uniform() * tempered_total;
    for (size_t i = 0; i < survivors; ++i) {
        threshold -= probabilities[i];
        if (threshold < 0.0) return m_candidates[i].second;
    }
    return m_candidates[survivors - 1].second;
}

}  // namespace hearth
