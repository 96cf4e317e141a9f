// Rotary position embedding: the per-pair frequencies a model's metadata implies, and the
// rotation of one head. One definition for every backend that runs on the CPU.
#pragma once

#include <vector>

#include "engine/model/model.h"

namespace hearth {

class Rope final {
public:
    // base^(-2i/d) per pair i, divided by rope_freqs factors (Llama 3.1) and scaled linearly.
    explicit Rope(const Model& model);

    // Rotates the leading rope_dimensions of one head in place, pairing dimensions the way the
    // model family does (adjacent pairs, or NEOX halves).
    void apply(float* head, int position) const;

    // The same in two steps, so a token's angles are computed once for all of its heads:
    // cosines and sines hold pairs() floats each.
    size_t pairs() const { return m_frequencies.size(); }
    void angles(int position, float* cosines, float* sines) const;
    void rotate(float* head, const float* cosines, const float* sines) const;

    const std::vector<double>& frequencies() const { return m_frequencies; }

private:
    void rotate_pair(float* head, int pair, float cosine, float sine) const;

    std::vector<double> m_frequencies;
    RopeStyle m_style;
};

}  // namespace hearth
