// Expert routing on its own, against the README's qwen3moe semantics worked by hand (softmax over
// all experts, the top k by probability, their probabilities renormalised) and gpt-oss's (the
// top k by logit, then the softmax over those k), ties included.
#include "engine/model/expert_routing.h"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <vector>

namespace hearth {
namespace {

std::vector<ExpertChoice> route(const std::vector<float>& logits, size_t used) {
    std::vector<ExpertChoice> chosen(used);
    route_experts(logits, chosen);
    return chosen;
}

TEST(ExpertRouting, KeepsTheMostProbableAndRenormalisesTheirProbabilities) {
    const std::vector<float> logits{0.5f, 2.0f, -1.0f, 1.0f, 1.5f};
    const auto chosen = route(logits, 2);
    ASSERT_EQ(chosen.size(), 2u);
    EXPECT_EQ(chosen[0].expert, 1);
    EXPECT_EQ(chosen[1].expert, 4);
    // p_e / (p_1 + p_4) with p = softmax(logits): the softmax's sum cancels.
    double sum = 0.0;
    for (const float l : logits) sum += std::exp(l);
    const double p1 = std::exp(2.0) / sum, p4 = std::exp(1.5) / sum;
    EXPECT_NEAR(chosen[0].weight, p1 / (p1 + p4), 1e-7);
    EXPECT_NEAR(chosen[1].weight, p4 / (p1 + p4), 1e-7);
}

TEST(ExpertRouting, AWinnerLateInTheListDisplacesEarlierOnes) {
    const auto chosen = route({-3.0f, -2.0f, -1.0f, 0.0f, 5.0f, 4.0f}, 3);
    EXPECT_EQ(chosen[0].expert, 4);
    EXPECT_EQ(chosen[1].expert, 5);
    EXPECT_EQ(chosen[2].expert, 3);
    EXPECT_NEAR(chosen[0].weight + chosen[1].weight + chosen[2].weight, 1.0f, 1e-6);
}

// Equal logits go to the lower-numbered expert, wherever the tie falls in the list.
TEST(ExpertRouting, TiesGoToTheLowerNumberedExpert) {
    const auto chosen = route({1.0f, 3.0f, 1.0f, 3.0f, 1.0f}, 3);
    EXPECT_EQ(chosen[0].expert, 1);
    EXPECT_EQ(chosen[1].expert, 3);
    EXPECT_EQ(chosen[2].expert, 0);
    EXPECT_EQ(chosen[0].weight, chosen[1].weight);
    const double big = std::exp(2.0);  // e^3 / e^1
    EXPECT_NEAR(chosen[0].weight, big / (2 * big + 1), 1e-7);
    EXPECT_NEAR(chosen[2].weight, 1 / (2 * big + 1), 1e-7);
    const auto all_equal = route({0.25f, 0.25f, 0.25f, 0.25f}, 2);
    EXPECT_EQ(all_equal[0].expert, 0);
    EXPECT_EQ(all_equal[1].expert, 1);
    EXPECT_FLOAT_EQ(all_equal[0].weight, 0.5f);
}

TEST(ExpertRouting, UsingEveryExpertWeighsThemByTheSoftmax) {
    const auto chosen = route({0.0f, std::log(3.0f)}, 2);
    EXPECT_EQ(chosen[0].expert, 1);
    EXPECT_NEAR(chosen[0].weight, 0.75f, 1e-7);
    EXPECT_NEAR(chosen[1].weight, 0.25f, 1e-7);
}

// Large logits would overflow exp() unshifted.
TEST(ExpertRouting, LargeLogitsStayFinite) {
    const auto chosen = route({1000.0f, 999.0f, -1000.0f}, 2);
    EXPECT_EQ(chosen[0].expert, 0);
    EXPECT_NEAR(chosen[0].weight, 1.0 / (1.0 + std::exp(-1.0)), 1e-6);
}

// gpt-oss's rule as the README states it, worked by hand: the top k by logit, then a softmax
// over those k logits alone; the unchosen logits play no part.
TEST(ExpertRouting, GptOssRuleIsTheSoftmaxOverTheChosenLogits) {
    const std::vector<float> logits{-0.4f, 1.25f, 0.5f, 1.0f};
    const auto chosen = route(logits, 2);
    EXPECT_EQ(chosen[0].expert, 1);
    EXPECT_EQ(chosen[1].expert, 3);
    const double e1 = std::exp(1.25), e3 = std::exp(1.0);
    EXPECT_NEAR(chosen[0].weight, e1 / (e1 + e3), 1e-7);
    EXPECT_NEAR(chosen[1].weight, e3 / (e1 + e3), 1e-7);
}

// A tie at the edge of the top k under gpt-oss's rule: of the experts sharing the k-th logit,
// the lower-numbered is kept, and the weights are the softmax over the kept logits.
TEST(ExpertRouting, GptOssTieAtTheLastPlaceKeepsTheLowerExpert) {
    const auto chosen = route({0.25f, 2.0f, 0.75f, 0.75f, 0.75f}, 2);
    EXPECT_EQ(chosen[0].expert, 1);
    EXPECT_EQ(chosen[1].expert, 2);
    const double big = std::exp(2.0 - 0.75);
    EXPECT_NEAR(chosen[0].weight, big / (big + 1), 1e-7);
    EXPECT_NEAR(chosen[1].weight, 1 / (big + 1), 1e-7);
    // The same tie with the kept expert last in the list changes nothing.
    const auto reversed = route({0.75f, 0.75f, 0.75f, 0.25f, 2.0f}, 2);
    EXPECT_EQ(reversed[0].expert, 4);
    EXPECT_EQ(reversed[1].expert, 0);
    EXPECT_EQ(reversed[0].weight, chosen[0].weight);
}

TEST(ExpertRouting, MoreExpertsThanExistIsRefused) {
    EXPECT_THROW(route({1.0f, 2.0f}, 3), std::invalid_argument);
    EXPECT_THROW(route({1.0f, 2.0f}, 0), std::invalid_argument);
}

}  // namespace
}  // namespace hearth
