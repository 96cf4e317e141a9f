#include "ui/markdown_blocks.h"

#include <QRegularExpression>

#include <optional>

namespace hearth::ui {
namespace {

using Kind = MarkdownBlock::Kind;

// Columns of indentation before a line's first character (a tab counts as four).
int indentation(const QString& line) {
    int columns = 0;
    for (const QChar c : line) {
        if (c == ' ') {
            ++columns;
        } else if (c == '\t') {
            columns += 4;
        } else {
            break;
        }
    }
    return columns;
}

// A fence line: up to three spaces, then ``` or ~~~; returns the info string (language).
bool fence(const QString& line, QString* language) {
    const QString trimmed = line.trimmed();
    if (indentation(line) > 3 ||
        !(trimmed.startsWith(QLatin1String("```")) || trimmed.startsWith(QLatin1String("~~~")))) {
        return false;
    }
    if (language != nullptr) *language = trimmed.mid(3).trimmed().section(' ', 0, 0);
    return true;
}

// "> words": the quoted text, without the marker and the one space after it.
std::optional<QString> quoted(const QString& line) {
    static const QRegularExpression marker(QStringLiteral("^ {0,3}> ?"));
    const auto match = marker.match(line);
    if (!match.hasMatch()) return std::nullopt;
    return line.mid(match.capturedLength());
}

// "- words", "* words", "+ words", "12. words" or "12) words", indented or not (a rule such
// as "* * *" is none).
std::optional<MarkdownBlock> list_item(const QString& line) {
    static const QRegularExpression item(
        QStringLiteral(R"(^\s*(?:([-*+])|(\d{1,9})[.)])(?:\s+|$))"));
    static const QRegularExpression rule(QStringLiteral(R"(^ {0,3}([-*_])(?:\s*\1){2,}\s*$)"));
    const auto match = item.match(line);
    if (!match.hasMatch() || rule.match(line).hasMatch()) return std::nullopt;
    MarkdownBlock block;
    block.kind = Kind::ListItem;
    block.text = line.mid(match.capturedLength());
    block.indent = indentation(line);
    if (match.capturedLength(2) > 0) block.number = match.captured(2).toInt();
    return block;
}

// Collects the blocks line by line.
class BlockBuilder {
public:
    // One line of the text; an incomplete one (the last, still growing) never closes a block.
    void add(const QString& line, qsizetype position, bool complete) {
        QString language;
        if (open(Kind::Code)) {
            if (!fence(line, nullptr)) {
                append(line);
            } else if (complete) {
                close();
            }
        } else if (complete && fence(line, &language)) {
            begin(Kind::Code, position);
            m_current.language = language;
        } else if (line.trimmed().isEmpty()) {
            if (complete) close();
        } else if (const auto text = quoted(line)) {
            // A quote's lines belong together: it ends at the first line that is not one.
            if (!open(Kind::Quote)) begin(Kind::Quote, position);
            append(*text);
        } else if (auto item = list_item(line)) {
            close();
            item->start = position;
            m_current = *std::move(item);
            m_open = m_has_line = true;
            if (complete) close();
        } else {
            add_prose(line, position, complete);
        }
    }

    std::vector<MarkdownBlock> finish() && {
        if (m_open) m_blocks.push_back(m_current);
        return std::move(m_blocks);
    }

private:
    void add_prose(const QString& line, qsizetype position, bool complete) {
        if (!open(Kind::Prose)) begin(Kind::Prose, position);
        append(line);
        // A finished line ends its block too (tables excepted, whose rows belong together): an
        // answer written as one long paragraph of lines would otherwise be re-rendered whole at
        // every frame.
        const bool table_row = line.trimmed().startsWith('|');
        if (complete && !table_row) close();
    }

    bool open(Kind kind) const { return m_open && m_current.kind == kind; }

    void begin(Kind kind, qsizetype position) {
        close();
        m_current.kind = kind;
        m_current.start = position;
        m_open = true;
    }

    void append(const QString& line) {
        m_current.text += (m_has_line ? QStringLiteral("\n") : QString()) + line;
        m_has_line = true;
    }

    void close() {
        if (m_open) {
            m_current.closed = true;
            m_blocks.push_back(m_current);
        }
        m_current = MarkdownBlock{};
        m_open = m_has_line = false;
    }

    std::vector<MarkdownBlock> m_blocks;
    MarkdownBlock m_current;
    bool m_open = false;      // `m_current` has begun
    bool m_has_line = false;  // `m_current.text` holds at least one line
};

}  // namespace

std::vector<MarkdownBlock> split_markdown(const QString& text) {
    BlockBuilder builder;
    qsizetype position = 0;
    while (true) {
        qsizetype end = text.indexOf('\n', position);
        const bool complete = end >= 0;
        if (!complete) end = text.size();
        builder.add(text.mid(position, end - position), position, complete);
        if (!complete) break;
        position = end + 1;
    }
    return std::move(builder).finish();
}

}  // namespace hearth::ui
