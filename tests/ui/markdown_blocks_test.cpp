#include "ui/markdown_blocks.h"

#include <gtest/gtest.h>

#include <tuple>

namespace hearth::ui {
namespace {

using Kind = MarkdownBlock::Kind;

TEST(MarkdownBlocks, ProseLinesAndFencedCodeAreSeparateBlocks) {
    const auto blocks = split_markdown(
        "Intro with **bold**.\nSecond line.\n\n```python\ndef f():\n\n    return 1\n```\nAfter.");
    ASSERT_EQ(blocks.size(), 4u);
    EXPECT_EQ(blocks[0].text, "Intro with **bold**.");
    EXPECT_EQ(blocks[1].text, "Second line.");
    EXPECT_EQ(blocks[2].kind, Kind::Code);
    EXPECT_EQ(blocks[2].language, "python");
    EXPECT_EQ(blocks[2].text, "def f():\n\n    return 1");  // blank lines inside code stay
    EXPECT_TRUE(blocks[2].closed);
    EXPECT_EQ(blocks[3].text, "After.");
    EXPECT_FALSE(blocks[3].closed);  // the last block may still grow
}

TEST(MarkdownBlocks, AnUnfinishedLineOrFenceKeepsItsBlockOpen) {
    auto blocks = split_markdown("```cpp\nint x;\n``");
    ASSERT_EQ(blocks.size(), 1u);
    EXPECT_EQ(blocks[0].kind, Kind::Code);
    EXPECT_FALSE(blocks[0].closed);
    EXPECT_EQ(blocks[0].text, "int x;\n``");
    blocks = split_markdown("```cpp\nint x;\n```");  // the fence line is not finished yet
    ASSERT_EQ(blocks.size(), 1u);
    EXPECT_FALSE(blocks[0].closed);
    EXPECT_EQ(blocks[0].text, "int x;");
    blocks = split_markdown("```");  // an opening fence still being typed is prose for now
    ASSERT_EQ(blocks.size(), 1u);
    EXPECT_EQ(blocks[0].kind, Kind::Prose);
}

TEST(MarkdownBlocks, TableRowsStayTogether) {
    const auto blocks = split_markdown("| a | b |\n|---|---|\n| 1 | 2 |\n\nDone");
    ASSERT_EQ(blocks.size(), 2u);
    EXPECT_EQ(blocks[0].text, "| a | b |\n|---|---|\n| 1 | 2 |");
    EXPECT_TRUE(blocks[0].closed);
    EXPECT_EQ(blocks[1].start, QString("| a | b |\n|---|---|\n| 1 | 2 |\n\n").size());
}

// Each list item is a block of its own, with the number it was written with and its depth: a
// list is drawn item by item, so a streaming list re-renders one item per frame.
TEST(MarkdownBlocks, ListItemsAreBlocksWithTheirNumberAndDepth) {
    const auto blocks = split_markdown(
        "5. five\n6) six\n   - nested\n* star\n+ plus\n* * *\n-1 degrees\n1.5 litres\n2. ");
    ASSERT_EQ(blocks.size(), 9u);
    const std::vector<std::tuple<Kind, QString, int, int>> expected{
        {Kind::ListItem, "five", 5, 0},     {Kind::ListItem, "six", 6, 0},
        {Kind::ListItem, "nested", -1, 3},  {Kind::ListItem, "star", -1, 0},
        {Kind::ListItem, "plus", -1, 0},    {Kind::Prose, "* * *", -1, 0},  // a rule
        {Kind::Prose, "-1 degrees", -1, 0}, {Kind::Prose, "1.5 litres", -1, 0},
        {Kind::ListItem, "", 2, 0}};  // still being written
    for (size_t i = 0; i < expected.size(); ++i) {
        const auto& [kind, text, number, indent] = expected[i];
        EXPECT_EQ(blocks[i].kind, kind) << i;
        EXPECT_EQ(blocks[i].text, text) << i;
        EXPECT_EQ(blocks[i].number, number) << i;
        EXPECT_EQ(blocks[i].indent, indent) << i;
        EXPECT_EQ(blocks[i].closed, i + 1 < expected.size()) << i;
    }
}

// A quote's lines stay together, without their markers; the quote ends at the first line that
// is not one, and while the last line may still become one, it stays open.
TEST(MarkdownBlocks, AQuotesLinesStayTogetherWithoutTheirMarkers) {
    auto blocks = split_markdown("Said:\n> one\n>two\n>\n>  three\nAfter.");
    ASSERT_EQ(blocks.size(), 3u);
    EXPECT_EQ(blocks[1].kind, Kind::Quote);
    EXPECT_EQ(blocks[1].text, "one\ntwo\n\n three");
    EXPECT_TRUE(blocks[1].closed);
    EXPECT_EQ(blocks[1].start, QString("Said:\n").size());
    EXPECT_EQ(blocks[2].text, "After.");
    blocks = split_markdown("> one\n");
    ASSERT_EQ(blocks.size(), 1u);
    EXPECT_FALSE(blocks[0].closed);
    blocks = split_markdown("> one\n> tw");
    ASSERT_EQ(blocks.size(), 1u);
    EXPECT_EQ(blocks[0].text, "one\ntw");
}

TEST(MarkdownBlocks, StartsPointIntoTheText) {
    const QString text = "one\n\ntwo\n```\ncode\n```\nthree";
    for (const auto& block : split_markdown(text)) {
        const QString expected = block.kind == Kind::Prose ? block.text : QStringLiteral("```");
        EXPECT_TRUE(text.mid(block.start).startsWith(expected)) << block.start;
    }
}

}  // namespace
}  // namespace hearth::ui
