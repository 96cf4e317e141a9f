#include "engine/generation/prefill_planner.h"

#include <gtest/gtest.h>

namespace hearth {
namespace {

std::vector<int> variants_used(const std::vector<PrefillStep>& steps) {
    std::vector<int> out;
    for (const auto& step : steps) out.push_back(step.variant);
    return out;
}

TEST(PrefillPlanner, TheIssuesExamples) {
    const std::vector<int> variants{1, 8, 64};
    EXPECT_EQ(plan_prefill(50, 0, variants), (std::vector<PrefillStep>{{0, 50, 64}}));
    EXPECT_EQ(variants_used(plan_prefill(200, 0, variants)), (std::vector<int>{64, 64, 64, 8}));
    EXPECT_EQ(plan_prefill(200, 0, variants).back(), (PrefillStep{192, 8, 8}));
    EXPECT_EQ(plan_prefill(5, 0, variants), (std::vector<PrefillStep>{{0, 5, 8}}));
    EXPECT_EQ(plan_prefill(1, 0, variants), (std::vector<PrefillStep>{{0, 1, 1}}));
}

TEST(PrefillPlanner, CachedTokensAreNotPrefilledAgain) {
    const std::vector<int> variants{64, 1, 8};  // any order
    EXPECT_TRUE(plan_prefill(120, 120, variants).empty());
    EXPECT_EQ(plan_prefill(130, 120, variants), (std::vector<PrefillStep>{{0, 10, 64}}));
    EXPECT_EQ(variants_used(plan_prefill(300, 100, variants)), (std::vector<int>{64, 64, 64, 8}));
}

TEST(PrefillPlanner, StepsCoverEveryTokenOnceInOrder) {
    const std::vector<int> variants{1, 8, 64, 256};
    for (int length = 1; length <= 700; ++length) {
        int next = 0;
        for (const auto& step : plan_prefill(length, 0, variants)) {
            ASSERT_EQ(step.start, next);
            ASSERT_GT(step.tokens, 0);
            ASSERT_LE(step.tokens, step.variant);
            next += step.tokens;
        }
        ASSERT_EQ(next, length);
    }
}

TEST(PrefillPlanner, RefusesNonsense) {
    const std::vector<int> bad{0, 8};
    EXPECT_THROW(plan_prefill(10, 0, bad), std::invalid_argument);
    EXPECT_THROW(plan_prefill(10, 0, std::vector<int>{}), std::invalid_argument);
    EXPECT_THROW(plan_prefill(10, 11, std::vector<int>{8}), std::invalid_argument);
}

TEST(PrefillPlanner, StepsGoToTheBackendOneByOneOrBatched) {
    const std::vector<int> variants{1, 8, 64};
    const auto steps = plan_prefill(200, 0, variants);  // 64, 64, 64, 8
    const std::vector<PrefillCall> each{{0, 64}, {64, 64}, {128, 64}, {192, 8}};
    EXPECT_EQ(group_prefill_steps(steps, 0), each);
    const std::vector<PrefillCall> pairs{{0, 128}, {128, 72}};
    EXPECT_EQ(group_prefill_steps(steps, 128), pairs);
    const std::vector<PrefillCall> one{{0, 200}};
    EXPECT_EQ(group_prefill_steps(steps, 512), one);
    // A step larger than the batch is still a call of its own.
    EXPECT_EQ(group_prefill_steps(steps, 32), each);
    EXPECT_TRUE(group_prefill_steps({}, 64).empty());
}

}  // namespace
}  // namespace hearth
