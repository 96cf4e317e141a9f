#include "engine/text/utf8_buffer.h"

#include <gtest/gtest.h>

namespace hearth {
namespace {

TEST(Utf8Buffer, HoldsACharacterUntilItCompletes) {
    Utf8Buffer buffer;
    EXPECT_EQ(buffer.push("a\xF0\x9F"), "a");  // first half of U+1F999
    EXPECT_FALSE(buffer.empty());
    EXPECT_EQ(buffer.push("\xA6"), "");
    EXPECT_EQ(buffer.push("\x99!"), "\xF0\x9F\xA6\x99!");
    EXPECT_TRUE(buffer.empty());
}

TEST(Utf8Buffer, ReplacesBytesThatCanNeverFormACharacter) {
    Utf8Buffer buffer;
    EXPECT_EQ(buffer.push("\x83x"), "\xEF\xBF\xBDx");                // stray continuation byte
    EXPECT_EQ(buffer.push("\xE2\x28"), "\xEF\xBF\xBD(");             // broken sequence
    EXPECT_EQ(buffer.push("\xC0\xAF"), "\xEF\xBF\xBD\xEF\xBF\xBD");  // overlong
    EXPECT_EQ(buffer.push("\xED\xA0\x80"), "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");  // surrogate
    EXPECT_EQ(buffer.push("\xE2\x82"), "");
    EXPECT_EQ(buffer.flush(), "\xEF\xBF\xBD\xEF\xBF\xBD");
}

TEST(Utf8Buffer, ValidatesWholeStrings) {
    EXPECT_TRUE(is_valid_utf8("héllo 🦙"));
    EXPECT_FALSE(is_valid_utf8("\xF4\x90\x80\x80"));  // past U+10FFFF
    EXPECT_FALSE(is_valid_utf8("abc\xE2\x82"));
}

}  // namespace
}  // namespace hearth
