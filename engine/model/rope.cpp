#include "engine/model/rope.h"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "kernels/rope.h"

namespace hearth {

namespace {

// How much of YaRN's interpolation each pair gets: 1/s for the pairs that turn fewer than
// beta_slow times over the original context, none for those that turn more than beta_fast
// times, a linear ramp between. The ramp's ends are whole pairs, rounded outwards as llama.cpp
// rounds them.
std::vector<double> yarn_multipliers(const RopeConfig& config) {
    const YarnConfig& yarn = config.yarn;
    const int pairs = config.dimensions / 2;
    std::vector<double> multipliers(static_cast<size_t>(pairs), 1.0);
    if (yarn.factor <= 0.0) return multipliers;
    // The pair that turns `rotations` times over the original context, as a fraction.
    const auto pair_at = [&](double rotations) {
        return config.dimensions *
               std::log(yarn.original_context / (2.0 * std::numbers::pi * rotations)) /
               (2.0 * std::log(config.base));
    };
    const double low = std::max(0.0, std::floor(pair_at(yarn.beta_fast)));
    const double high = std::min(config.dimensions - 1.0, std::ceil(pair_at(yarn.beta_slow)));
    for (int i = 0; i < pairs; ++i) {
        const double kept = 1.0 - std::clamp((i - low) / std::max(0.001, high - low), 0.0, 1.0);
        multipliers[static_cast<size_t>(i)] = (1.0 - kept) / yarn.factor + kept;
    }
    return multipliers;
}

}  // namespace

Rope::Rope(const RopeConfig& config, std::span<const float> factors)
    : m_magnitude(config.magnitude), m_style(config.style) {
    const auto yarn = yarn_multipliers(config);
    for (int i = 0; i < config.dimensions / 2; ++i) {
        double frequency = std::pow(config.base, -2.0 * i / config.dimensions);
        if (!factors.empty()) frequency /= factors[static_cast<size_t>(i)];
        m_frequencies.push_back(frequency * config.scale * yarn[static_cast<size_t>(i)]);
    }
}

void Rope::apply(float* head, int position) const {
    std::vector<float> cosines(pairs()), sines(pairs());
    angles(position, cosines.data(), sines.data());
    rotate(head, cosines.data(), sines.data());
}

void Rope::angles(int position, float* cosines, float* sines) const {
    scaled_angles(position, m_magnitude, cosines, sines);
}

void Rope::shift_angles(int delta, float* cosines, float* sines) const {
    scaled_angles(delta, 1.0, cosines, sines);
}

void Rope::scaled_angles(int steps, double magnitude, float* cosines, float* sines) const {
    for (size_t i = 0; i < m_frequencies.size(); ++i) {
        const double angle = static_cast<double>(steps) * m_frequencies[i];
        cosines[i] = static_cast<float>(magnitude * std::cos(angle));
        sines[i] = static_cast<float>(magnitude * std::sin(angle));
    }
}

void Rope::rotate(float* head, const float* cosines, const float* sines) const {
    const auto pairing = m_style == RopeStyle::AdjacentPairs ? kernels::RopePairing::Adjacent
                                                             : kernels::RopePairing::Halves;
    kernels::rope_rotate(pairing, head, cosines, sines, pairs());
}

LayerRopes::LayerRopes(const Model& model, int context_length) {
    const ModelConfig& config = model.config();
    const ModelWeights& weights = model.weights();
    // LongRoPE: the long factors only where the context goes past the original one.
    std::span<const float> factors = weights.rope_factors;
    if (!weights.rope_factors_short.empty()) factors = weights.rope_factors_short;
    if (!weights.rope_factors_long.empty() && context_length > config.rope_original_context) {
        factors = weights.rope_factors_long;
    }
    int global = -1, local = -1;
    for (const LayerConfig& layer : config.layers) {
        int kind = -1;
        if (layer.rope == LayerConfig::Rope::Global) {
            if (global < 0) {
                global = static_cast<int>(m_kinds.size());
                m_kinds.emplace_back(config.rope, factors);
            }
            kind = global;
        } else if (layer.rope == LayerConfig::Rope::Local) {
            if (local < 0) {
                local = static_cast<int>(m_kinds.size());
                m_kinds.emplace_back(config.local_rope, factors);
            }
            kind = local;
        }
        m_kind_of.push_back(kind);
    }
}

const Rope* LayerRopes::layer(int index) const {
    const int kind = kind_of(index);
    return kind < 0 ? nullptr : &m_kinds[static_cast<size_t>(kind)];
}

}  // namespace hearth
