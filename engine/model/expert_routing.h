// Which experts of a mixture-of-experts layer a token goes to, and with what weight. Qwen3-MoE's
// rule: softmax over every expert's router logit, the `used` most probable kept, their
// probabilities renormalised to sum to one. gpt-oss's rule: the `used` largest logits (its
// router has a bias, added before), weighted by the softmax over those logits alone. The two are
// one function: the softmax keeps the logits' order, and renormalising the kept probabilities
// divides out the sum over the others, leaving e^l over the kept e^l, which is what this
// computes for both.
#pragma once

#include <span>

namespace hearth {

struct ExpertChoice {
    int expert = 0;
    float weight = 0.0f;
};

// Fills `chosen` (its size is the number of experts used) from `logits` (one per expert), most
// probable first; equal logits go to the lower-numbered expert, so a tie never depends on the
// order anything ran in. Throws std::invalid_argument when more experts are asked for than exist.
void route_experts(std::span<const float> logits, std::span<ExpertChoice> chosen);

}  // namespace hearth
