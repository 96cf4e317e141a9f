#include "engine/generation/ngram_drafter.h"

#include <gtest/gtest.h>

namespace hearth {
namespace {

TEST(NgramDrafter, ProposesWhatFollowedTheMostRecentEarlierOccurrence) {
    const std::vector<int32_t> history{5, 6, 7, 8, 9, 1, 6, 7, 3, 4, 6, 7};
    // "6 7" occurred twice before; the most recent was followed by 3 4 6 7.
    EXPECT_EQ(draft_by_lookup(history, {.max_tokens = 3}), (std::vector<int32_t>{3, 4, 6}));
}

TEST(NgramDrafter, PrefersLongerMatches) {
    const std::vector<int32_t> history{1, 2, 3, 10, 11, 9, 2, 3, 20, 21, 1, 2, 3};
    // "1 2 3" (three tokens) beats the more recent "2 3".
    EXPECT_EQ(draft_by_lookup(history, {.max_tokens = 2, .max_ngram = 3}),
              (std::vector<int32_t>{10, 11}));
    EXPECT_EQ(draft_by_lookup(history, {.max_tokens = 2, .max_ngram = 2}),
              (std::vector<int32_t>{20, 21}));
}

TEST(NgramDrafter, NothingWhenTheSuffixIsNew) {
    EXPECT_TRUE(draft_by_lookup(std::vector<int32_t>{1, 2, 3, 4}, {}).empty());
    EXPECT_TRUE(draft_by_lookup(std::vector<int32_t>{}, {}).empty());
    EXPECT_TRUE(draft_by_lookup(std::vector<int32_t>{7}, {}).empty());
    // A match at the very end has nothing after it to propose beyond the history.
    EXPECT_EQ(draft_by_lookup(std::vector<int32_t>{4, 4, 4}, {.max_tokens = 5, .min_ngram = 1}),
              (std::vector<int32_t>{4}));
}

}  // namespace
}  // namespace hearth
