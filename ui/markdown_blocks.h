// Splits Markdown into the blocks the streaming view renders separately: prose lines (a table's
// rows stay together), list items, block quotes and fenced code blocks. Only the last block can
// still change while an answer streams, so only it is ever re-rendered.
#pragma once

#include <QString>

#include <vector>

namespace hearth::ui {

struct MarkdownBlock {
    enum class Kind { Prose, Code, Quote, ListItem };
    Kind kind = Kind::Prose;
    // prose: the Markdown source; code: the code without its fences; quote: the quoted Markdown
    // without its ">" markers; list item: the item's Markdown without its marker
    QString text;
    QString language;     // code only
    int indent = 0;       // list item: columns before its marker (a nested list is indented)
    int number = -1;      // list item: the number it was written with; -1: a bullet
    qsizetype start = 0;  // offset of the block's first character in the parsed text
    bool closed = false;  // no later text can change it
};

// Blocks of `text`; everything but the last block is closed.
std::vector<MarkdownBlock> split_markdown(const QString& text);

}  // namespace hearth::ui
