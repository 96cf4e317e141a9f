#include "engine/generation/token_history.h"

#include <gtest/gtest.h>

namespace hearth {
namespace {

using Ids = std::vector<int32_t>;

TEST(TokenHistory, ForkKeepsTheSharedPrefix) {
    TokenHistory history;
    history.append(Ids{1, 2, 3, 4, 5});
    EXPECT_EQ(history.fork(Ids{1, 2, 3, 9}), 3);
    EXPECT_EQ(history.cached(), (Ids{1, 2, 3}));
    EXPECT_EQ(history.cached_prefix(), 3);
    EXPECT_EQ(history.fork(Ids{1, 2, 3, 4}), 3);
}

TEST(TokenHistory, DroppedTokensStayInTheConversationSoTheNextTurnLinesUp) {
    TokenHistory history;
    history.append(Ids{1, 2, 3, 4, 5, 6});
    history.erase_cached(1, 2);  // 2 and 3 leave the cache
    EXPECT_EQ(history.cached(), (Ids{1, 4, 5, 6}));
    EXPECT_EQ(Ids(history.conversation().begin(), history.conversation().end()),
              (Ids{1, 2, 3, 4, 5, 6}));
    EXPECT_EQ(history.cached_before(4), 2);  // of 1 2 3 4, only 1 and 4 are cached
    EXPECT_EQ(history.cached_prefix(), 1);   // 1 alone is where a fresh prefill would put it
    // The next turn repeats the whole conversation and adds to it.
    EXPECT_EQ(history.fork(Ids{1, 2, 3, 4, 5, 6, 7}), 6);
    EXPECT_EQ(history.cached_size(), 4);
    // A fork inside the dropped part keeps only what precedes it.
    EXPECT_EQ(history.fork(Ids{1, 2, 9}), 2);
    EXPECT_EQ(history.cached(), (Ids{1}));
}

TEST(TokenHistory, TruncatingTheCacheEndsTheConversationThere) {
    TokenHistory history;
    history.append(Ids{1, 2});
    history.append(Ids{3, 4}, false);  // planned but dropped
    history.append(Ids{5, 6, 7});
    history.truncate_cached(3);  // the cache kept 1 2 5
    EXPECT_EQ(history.cached(), (Ids{1, 2, 5}));
    EXPECT_EQ(history.cached_prefix(), 2);
    EXPECT_EQ(Ids(history.conversation().begin(), history.conversation().end()),
              (Ids{1, 2, 3, 4, 5}));
    EXPECT_THROW(history.truncate_cached(4), std::out_of_range);
    EXPECT_THROW(history.erase_cached(2, 2), std::out_of_range);
}

}  // namespace
}  // namespace hearth
