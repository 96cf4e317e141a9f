#include "ui/markdown_blocks.h"

namespace hearth::ui {
namespace {

// A fence line: up to three spaces, then ``` or ~~~; returns the info string (language).
bool fence(const QString& line, QString* language) {
    const QString trimmed = line.trimmed();
    const int indent = static_cast<int>(line.indexOf(trimmed.isEmpty() ? line : trimmed));
    if (indent > 3 ||
        !(trimmed.startsWith(QLatin1String("```")) || trimmed.startsWith(QLatin1String("~~~")))) {
        return false;
    }
    if (language != nullptr) *language = trimmed.mid(3).trimmed().section(' ', 0, 0);
    return true;
}

}  // namespace

std::vector<MarkdownBlock> split_markdown(const QString& text) {
    std::vector<MarkdownBlock> blocks;
    MarkdownBlock current;
    bool in_block = false;  // `current` has begun
    bool has_line = false;  // `current.text` holds at least one line
    const auto add_line = [&](const QString& line) {
        current.text += (has_line ? QStringLiteral("\n") : QString()) + line;
        has_line = true;
    };
    const auto close = [&] {
        if (in_block) {
            current.closed = true;
            blocks.push_back(current);
        }
        current = MarkdownBlock{};
        in_block = has_line = false;
    };
    qsizetype position = 0;
    while (true) {
        qsizetype end = text.indexOf('\n', position);
        // The last line may still be growing: it never closes a block.
        const bool complete_line = end >= 0;
        if (!complete_line) end = text.size();
        const QString line = text.mid(position, end - position);
        QString language;
        if (in_block && current.kind == MarkdownBlock::Kind::Code) {
            if (fence(line, nullptr)) {
                if (complete_line) close();
            } else {
                add_line(line);
            }
        } else if (complete_line && fence(line, &language)) {
            close();
            current.kind = MarkdownBlock::Kind::Code;
            current.language = language;
            current.start = position;
            in_block = true;
        } else if (line.trimmed().isEmpty()) {
            if (complete_line) close();
        } else {
            if (!in_block) current.start = position;
            in_block = true;
            add_line(line);
            // A finished line ends its block too (tables excepted, whose rows belong together):
            // an answer written as one long paragraph of lines would otherwise be re-rendered
            // whole at every frame.
            const bool table_row = line.trimmed().startsWith('|');
            if (complete_line && !table_row) close();
        }
        if (!complete_line) break;
        position = end + 1;
    }
    if (in_block) blocks.push_back(current);
    return blocks;
}

}  // namespace hearth::ui
