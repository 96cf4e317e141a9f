// Normally distributed weights for the synthetic benchmark models: xorshift128+ and Box-Muller,
// fast enough to fill a billion weights in seconds, and the same bytes on every machine for the
// same seed.
#pragma once

#include <cmath>
#include <cstdint>
#include <numbers>

namespace hearth::bench {

class NormalRandom final {
public:
    explicit NormalRandom(uint64_t seed)
        : m_a(seed * 0x9e3779b97f4a7c15ull + 1), m_b(seed ^ 0xda942042e4dd58b5ull) {}
    float next(float sigma) {
        if (m_has_spare) {
            m_has_spare = false;
            return m_spare * sigma;
        }
        const double u = (static_cast<double>(bits() >> 11) + 0.5) * 0x1.0p-53;
        const double v = static_cast<double>(bits() >> 11) * 0x1.0p-53;
        const double radius = std::sqrt(-2.0 * std::log(u));
        m_spare = static_cast<float>(radius * std::sin(2 * std::numbers::pi * v));
        m_has_spare = true;
        return static_cast<float>(radius * std::cos(2 * std::numbers::pi * v)) * sigma;
    }

private:
    uint64_t bits() {
        uint64_t x = m_a;
        const uint64_t y = m_b;
        m_a = y;
        x ^= x << 23;
        m_b = x ^ y ^ (x >> 17) ^ (y >> 26);
        return m_b + y;
    }
    uint64_t m_a, m_b;
    float m_spare = 0.0f;
    bool m_has_spare = false;
};

}  // namespace hearth::bench
