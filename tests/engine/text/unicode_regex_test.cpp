#include "engine/text/unicode_regex.h"

#include <gtest/gtest.h>

#include "engine/text/unicode.h"

namespace hearth {
namespace {

std::vector<std::string> all_matches(const std::string& pattern, const std::string& text) {
    const UnicodeRegex regex(pattern);
    const auto code_points = unicode::decode_utf8(text);
    std::vector<std::string> out;
    for (size_t position = 0; position < code_points.size();) {
        const auto [begin, end] = regex.find(code_points, position, code_points.size());
        if (begin == code_points.size()) break;
        out.push_back(unicode::encode_utf8(code_points, begin, end));
        position = end;
    }
    return out;
}

TEST(UnicodeRegex, CategoriesAndClasses) {
    EXPECT_EQ(all_matches("\\p{L}+", "héllo wörld 42 Ωmega"),
              (std::vector<std::string>{"héllo", "wörld", "Ωmega"}));
    EXPECT_EQ(all_matches("\\p{N}{1,3}", "1234567"), (std::vector<std::string>{"123", "456", "7"}));
    EXPECT_EQ(all_matches("[^\\s\\p{L}]+", "a, b!? c"), (std::vector<std::string>{",", "!?"}));
    EXPECT_EQ(all_matches("[一-龥]+", "ab中文cd"), (std::vector<std::string>{"中文"}));
    EXPECT_EQ(all_matches("\\p{P}+", "a...b"), (std::vector<std::string>{"..."}));
}

TEST(UnicodeRegex, BacktracksIntoNegativeLookahead) {
    // \s+(?!\S) leaves the last space of a run for the word that follows.
    EXPECT_EQ(all_matches(" ?\\p{L}+|\\s+(?!\\S)|\\s+", "a   b  "),
              (std::vector<std::string>{"a", "  ", " b", "  "}));
}

TEST(UnicodeRegex, FirstAlternativeWinsAndAnchorsAtTheEnd) {
    EXPECT_EQ(all_matches("'s|'\\p{L}+", "it's"), (std::vector<std::string>{"'s"}));
    EXPECT_EQ(all_matches("\\s+$", "a  b  "), (std::vector<std::string>{"  "}));
    EXPECT_EQ(all_matches("(?:ab)+c?", "ababcab"), (std::vector<std::string>{"ababc", "ab"}));
}

TEST(UnicodeRegex, RefusesWhatItCannotParse) {
    EXPECT_THROW(UnicodeRegex("(ab"), std::invalid_argument);
    EXPECT_THROW(UnicodeRegex("[ab"), std::invalid_argument);
    EXPECT_THROW(UnicodeRegex("\\p{Lu}"), std::invalid_argument);
    EXPECT_THROW(UnicodeRegex("a{3,1}"), std::invalid_argument);
}

}  // namespace
}  // namespace hearth
