// Rotary position embedding: the per-pair frequencies a model's metadata implies, and the
// rotation of one head. One definition for every backend that runs on the CPU, and the angle
// tables the GPU reads.
#pragma once

#include <span>
#include <vector>

#include "engine/model/model.h"

namespace hearth {

class Rope final {
public:
    // base^(-2i/d) per pair i, divided by `factors` where given (Llama 3.1's rope_freqs,
    // Phi-3's LongRoPE factors), scaled linearly and by YaRN's ramp (gpt-oss).
    Rope(const RopeConfig& config, std::span<const float> factors);

    // Rotates the leading dimensions of one head in place to `position`, pairing dimensions the
    // way the model family does (adjacent pairs, or NEOX halves), and scales them by the
    // magnitude.
    void apply(float* head, int position) const;

    // apply() in two steps, so a token's angles are computed once for all of its heads:
    // cosines and sines hold pairs() floats each, the magnitude included.
    size_t pairs() const { return m_frequencies.size(); }
    void angles(int position, float* cosines, float* sines) const;
    void rotate(float* head, const float* cosines, const float* sines) const;
    // The angles of a rotation by `delta` positions without the magnitude: rotate() with them
    // moves a cached key that apply() made.
    void shift_angles(int delta, float* cosines, float* sines) const;

    const std::vector<double>& frequencies() const { return m_frequencies; }
    float magnitude() const { return m_magnitude; }
    RopeStyle style() const { return m_style; }

private:
    void scaled_angles(int steps, double magnitude, float* cosines, float* sines) const;

    std::vector<double> m_frequencies;
    float m_magnitude;
    RopeStyle m_style;
};

// The rotations of a model's layers at one context length: Gemma 3's local layers rotate
// differently from its global ones, SmolLM3 leaves every fourth layer alone, and Phi-3's
// LongRoPE factors depend on how long the context is.
class LayerRopes final {
public:
    LayerRopes(const Model& model, int context_length);

    // The rotation of `layer`, or null where it has none.
    const Rope* layer(int index) const;
    // The distinct rotations, and which of them a layer uses (-1: none), for tables per kind.
    const std::vector<Rope>& kinds() const { return m_kinds; }
    int kind_of(int layer) const { return m_kind_of[static_cast<size_t>(layer)]; }

private:
    std::vector<Rope> m_kinds;
    std::vector<int> m_kind_of;
};

}  // namespace hearth
