#include "engine/generation/overflow_planner.h"

#include <gtest/gtest.h>

namespace hearth {
namespace {

TEST(OverflowPlanner, DropsRightAfterTheKeptStartUpToTheNextTurn) {
    const std::vector<int> turns{0, 10, 25, 40, 70};
    EXPECT_EQ(plan_overflow(100, 10, 5, 1, turns), (DropRange{10, 15}));   // to turn 25
    EXPECT_EQ(plan_overflow(100, 10, 15, 1, turns), (DropRange{10, 15}));  // exactly a turn
    EXPECT_EQ(plan_overflow(100, 10, 16, 1, turns), (DropRange{10, 30}));  // to turn 40
}

TEST(OverflowPlanner, NeverTouchesTheProtectedTail) {
    const std::vector<int> turns{0, 10, 25, 40, 70};
    // The next boundary (70) would eat into the last 40: drop exactly what is needed instead.
    EXPECT_EQ(plan_overflow(100, 10, 35, 40, turns), (DropRange{10, 35}));
    EXPECT_EQ(plan_overflow(100, 10, 50, 40, turns), (DropRange{10, 50}));
    EXPECT_FALSE(plan_overflow(100, 10, 51, 40, turns));
}

TEST(OverflowPlanner, WorksWithoutTurnBoundaries) {
    EXPECT_EQ(plan_overflow(64, 3, 15, 1, {}), (DropRange{3, 15}));
    EXPECT_EQ(plan_overflow(64, 0, 63, 1, {}), (DropRange{0, 63}));
    EXPECT_FALSE(plan_overflow(64, 0, 64, 1, {}));
    EXPECT_FALSE(plan_overflow(64, 3, 0, 1, {}));
}

}  // namespace
}  // namespace hearth
