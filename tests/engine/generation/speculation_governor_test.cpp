#include "engine/generation/speculation_governor.h"

#include <gtest/gtest.h>

namespace hearth {
namespace {

using Governor = SpeculationGovernor;

// Four verify passes of `tokens` tokens each taking `seconds`.
void verify_passes(Governor& governor, int tokens, double seconds) {
    for (int pass = 0; pass < Governor::kPassesToJudge; ++pass) governor.verified(tokens, seconds);
}

TEST(SpeculationGovernor, DraftsWhileVerifyingIsFasterPerToken) {
    Governor governor;
    EXPECT_TRUE(governor.drafting());
    governor.decoded_plainly(10, 0.010);  // 1 ms a token
    verify_passes(governor, 3, 0.0015);   // 0.5 ms a token
    EXPECT_TRUE(governor.drafting());
    EXPECT_EQ(governor.plain_budget(), 0);
}

TEST(SpeculationGovernor, PausesForACooldownThatDoublesWhileDraftingLoses) {
    Governor governor;
    governor.decoded_plainly(10, 0.010);  // 1 ms a token
    verify_passes(governor, 1, 0.0013);   // each pass emits one token, slower than a step
    EXPECT_FALSE(governor.drafting());
    EXPECT_EQ(governor.plain_budget(), Governor::kFirstCooldown);

    governor.decoded_plainly(Governor::kFirstCooldown - 1, 0.015);
    EXPECT_FALSE(governor.drafting());
    EXPECT_EQ(governor.plain_budget(), 1);
    governor.decoded_plainly(1, 0.001);
    EXPECT_TRUE(governor.drafting());

    // Judged afresh: three more losing passes are not yet enough, the fourth is.
    for (int pass = 1; pass < Governor::kPassesToJudge; ++pass) governor.verified(1, 0.0013);
    EXPECT_TRUE(governor.drafting());
    governor.verified(1, 0.0013);
    EXPECT_EQ(governor.plain_budget(), 2 * Governor::kFirstCooldown);
}

TEST(SpeculationGovernor, TheCooldownStopsGrowingAtItsLimitAndStartsOverOnceDraftingPays) {
    Governor governor;
    governor.decoded_plainly(10, 0.010);
    for (int loss = 0; loss < 12; ++loss) {
        verify_passes(governor, 1, 0.002);
        ASSERT_FALSE(governor.drafting());
        EXPECT_LE(governor.plain_budget(), Governor::kLongestCooldown);
        governor.decoded_plainly(governor.plain_budget(), 0.001 * governor.plain_budget());
    }
    verify_passes(governor, 1, 0.002);
    EXPECT_EQ(governor.plain_budget(), Governor::kLongestCooldown);
    governor.decoded_plainly(Governor::kLongestCooldown, 1.024);

    for (int pass = 0; pass < 2 * Governor::kPassesToJudge; ++pass) governor.verified(4, 0.002);
    EXPECT_TRUE(governor.drafting());
    governor.verified(1, 0.004);  // losing again: the first cooldown, not the longest
    EXPECT_EQ(governor.plain_budget(), Governor::kFirstCooldown);
}

TEST(SpeculationGovernor, ALossWithinTheMarginDoesNotPause) {
    Governor governor;
    governor.decoded_plainly(10, 0.010);
    verify_passes(governor, 1, 0.00104);  // 4% slower
    EXPECT_TRUE(governor.drafting());
}

// With drafts at every step (a draft model) plain decoding is never timed: a short probe is.
TEST(SpeculationGovernor, ProbesPlainDecodingWhenDraftsLeaveNoGap) {
    Governor governor;
    verify_passes(governor, 2, 0.001);
    EXPECT_FALSE(governor.drafting());
    EXPECT_EQ(governor.plain_budget(), Governor::kProbeTokens);
    governor.decoded_plainly(Governor::kProbeTokens, 0.004);  // 1 ms a token
    EXPECT_TRUE(governor.drafting());
    verify_passes(governor, 2, 0.001);  // 0.5 ms a token: drafting goes on
    EXPECT_TRUE(governor.drafting());
}

TEST(SpeculationGovernor, PassesThatEmitNothingAreNotCounted) {
    Governor governor;
    governor.decoded_plainly(0, 1.0);
    verify_passes(governor, 0, 1.0);
    EXPECT_TRUE(governor.drafting());
}

}  // namespace
}  // namespace hearth
