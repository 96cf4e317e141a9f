#include "engine/model/rope.h"

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

void Rope::rotate_pair(float* head, int pair, float cosine, float sine) const {
    const int half = static_cast<int>(m_frequencies.size());
    const int a = m_style == RopeStyle::AdjacentPairs ? 2 * pair : pair;
    const int b = m_style == RopeStyle::AdjacentPairs ? 2 * pair + 1 : pair + half;
    const float x0 = head[a], x1 = head[b];
    head[a] = x0 * cosine - x1 * sine;
    head[b] = x0 * sine + x1 * cosine;
}

void Rope::apply(float* head, int position) const {
    for (int i = 0; i < static_cast<int>(m_frequencies.size()); ++i) {
        const double angle = static_cast<double>(position) * m_frequencies[i];
        rotate_pair(head, i, static_cast<float>(std::cos(angle)),
                    static_cast<float>(std::sin(angle)));
    }
}

void Rope::angles(int position, float* cosines, float* sines) const {
    for (size_t i = 0; i < m_frequencies.size(); ++i) {
        const double angle = static_cast<double>(position) * m_frequencies[i];
        cosines[i] = static_cast<float>(std::cos(angle));
        sines[i] = static_cast<float>(std::sin(angle));
    }
}

void Rope::rotate(float* head, const float* cosines, const float* sines) const {
    for (int i = 0; i < static_cast<int>(m_frequencies.size()); ++i) {
        rotate_pair(head, i, cosines[i], sines[i]);
    }
}

}  // namespace hearth
