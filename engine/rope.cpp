#include "engine/rope.h"

#include <cmath>

namespace hearth {

Rope::Rope(const Model& model) : m_style(model.config().rope_style) {
    const auto& config = model.config();
    const auto& factors = model.weights().rope_factors;
    for (int i = 0; i < config.rope_dimensions / 2; ++i) {
        double frequency = std::pow(config.rope_base, -2.0 * i / config.rope_dimensions);
        if (!factors.empty()) frequency /= factors[i];
        m_frequencies.push_back(frequency * config.rope_scale);
    }
}

void Rope::apply(float* head, int position) const {
    const int half = static_cast<int>(m_frequencies.size());
    for (int i = 0; i < half; ++i) {
        const double angle = static_cast<double>(position) * m_frequencies[i];
        const float cosine = static_cast<float>(std::cos(angle));
        const float sine = static_cast<float>(std::sin(angle));
        const int a = m_style == RopeStyle::AdjacentPairs ? 2 * i : i;
        const int b = m_style == RopeStyle::AdjacentPairs ? 2 * i + 1 : i + half;
        const float x0 = head[a], x1 = head[b];
        head[a] = x0 * cosine - x1 * sine;
        head[b] = x0 * sine + x1 * cosine;
    }
}

}  // namespace hearth
