#include "app/server/bearer_auth.h"

#include <gtest/gtest.h>

namespace hearth::server {
namespace {

TEST(BearerAuth, OnlyTheExactKeyAfterBearerMatches) {
    EXPECT_TRUE(bearer_matches("Bearer sk-local-123", "sk-local-123"));
    EXPECT_FALSE(bearer_matches("Bearer sk-local-12", "sk-local-123"));
    EXPECT_FALSE(bearer_matches("Bearer sk-local-1234", "sk-local-123"));
    EXPECT_FALSE(bearer_matches("Bearer sk-local-124", "sk-local-123"));
    EXPECT_FALSE(bearer_matches("bearer sk-local-123", "sk-local-123"));
    EXPECT_FALSE(bearer_matches("sk-local-123", "sk-local-123"));
    EXPECT_FALSE(bearer_matches("", "sk-local-123"));
    EXPECT_FALSE(bearer_matches("Bearer ", "sk-local-123"));
    EXPECT_FALSE(bearer_matches("Bearer ", ""));  // no key never matches
}

}  // namespace
}  // namespace hearth::server
