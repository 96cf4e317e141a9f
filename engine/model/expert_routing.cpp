#include "engine/model/expert_routing.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace hearth {

void route_experts(std::span<const float> logits, std::span<ExpertChoice> chosen) {
    if (chosen.empty() || chosen.size() > logits.size()) {
        throw std::invalid_argument("cannot choose " + std::to_string(chosen.size()) + " of " +
                                    std::to_string(logits.size()) + " experts");
    }
    // Selection on the logits equals selection on the softmax, which is monotonic; only the
    // kept ones need their probability.
    for (size_t k = 0; k < chosen.size(); ++k) chosen[k] = {static_cast<int>(k), logits[k]};
    const auto better = [](const ExpertChoice& a, const ExpertChoice& b) {
        return a.weight > b.weight || (a.weight == b.weight && a.expert < b.expert);
    };
    std::sort(chosen.begin(), chosen.end(), better);
    for (size_t e = chosen.size(); e < logits.size(); ++e) {
        const ExpertChoice candidate{static_cast<int>(e), logits[e]};
        if (!better(candidate, chosen.back())) continue;
        chosen.back() = candidate;
        std::sort(chosen.begin(), chosen.end(), better);
    }
    // Each kept probability is exp(l - max) / Z over all experts; Z cancels in the renormalised
    // weights, so they are the kept exponentials over their own sum.
    const float largest = chosen.front().weight;
    double sum = 0.0;
    for (auto& choice : chosen) {
        choice.weight = std::exp(choice.weight - largest);
        sum += choice.weight;
    }
    for (auto& choice : chosen) choice.weight = static_cast<float>(choice.weight / sum);
}

}  // namespace hearth
