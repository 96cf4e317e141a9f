#include "engine/format/string_table.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

namespace hearth {
namespace {

TEST(StringTable, HoldsEmptyAndLongStringsSideBySide) {
    StringTable table;
    table.reserve(3, 8);
    table.push_back("");
    table.push_back("a string longer than any small-string buffer");
    table.push_back("é▁");
    ASSERT_EQ(table.size(), 3u);
    EXPECT_EQ(table[0], "");
    EXPECT_EQ(table[1], "a string longer than any small-string buffer");
    EXPECT_EQ(table.at(2), "é▁");
    EXPECT_THROW(table.at(3), std::out_of_range);
}

// Replacing a string by a longer, a shorter or an empty one moves the ones after it.
TEST(StringTable, SetMovesTheStringsAfterIt) {
    StringTable table;
    for (const char* text : {"one", "two", "three", "four"}) table.push_back(text);
    table.set(1, "twenty-two");
    table.set(2, "");
    table.set(0, "1");
    EXPECT_EQ(table[0], "1");
    EXPECT_EQ(table[1], "twenty-two");
    EXPECT_EQ(table[2], "");
    EXPECT_EQ(table[3], "four");
    EXPECT_THROW(table.set(4, "five"), std::out_of_range);

    StringTable same;
    for (const char* text : {"1", "twenty-two", "", "four"}) same.push_back(text);
    EXPECT_EQ(table, same);
    same.set(3, "for");
    EXPECT_NE(table, same);
}

// A view of the table's own characters moves when the buffer grows or shifts; storing it again
// still stores its text.
TEST(StringTable, StringsCopiedFromTheTableItselfSurvive) {
    StringTable table;
    table.push_back("first string, longer than fifteen bytes");
    table.push_back("second");
    for (int i = 0; i < 40; ++i) table.push_back(table[0]);
    EXPECT_EQ(table[41], "first string, longer than fifteen bytes");
    table.set(1, table[2]);
    table.set(0, table[1].substr(0, 5));
    EXPECT_EQ(table[0], "first");
    EXPECT_EQ(table[1], "first string, longer than fifteen bytes");
    EXPECT_EQ(table[41], "first string, longer than fifteen bytes");
}

}  // namespace
}  // namespace hearth
