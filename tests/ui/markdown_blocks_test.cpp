#include "ui/markdown_blocks.h"

#include <gtest/gtest.h>

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

TEST(MarkdownBlocks, StartsPointIntoTheText) {
    const QString text = "one\n\ntwo\n```\ncode\n```\nthree";
    for (const auto& block : split_markdown(text)) {
        const QString expected = block.kind == Kind::Prose ? block.text : QStringLiteral("```");
        EXPECT_TRUE(text.mid(block.start).startsWith(expected)) << block.start;
    }
}

}  // namespace
}  // namespace hearth::ui
