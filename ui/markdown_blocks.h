// Splits Markdown into the blocks the streaming view renders separately: prose lines (a table's
// rows stay together) and fenced code blocks. Only the last block can still change while
// an answer streams, so only it is ever re-rendered.
#pragma once

#include <QString>

#include <vector>

namespace hearth::ui {

struct MarkdownBlock {
    enum class Kind { Prose, Code };
    Kind kind = Kind::Prose;
    QString text;         // prose: the Markdown source; code: the code without its fences
    QString language;     // code only
    qsizetype start = 0;  // offset of the block's first character in the parsed text
    bool closed = false;  // no later text can change it
};

// Blocks of `text`; everything but the last block is closed.
std::vector<MarkdownBlock> split_markdown(const QString& text);

}  // namespace hearth::ui
