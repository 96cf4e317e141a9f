// A small highlighter for code blocks in answers: keywords, strings, comments and numbers for
// the languages models write most (C, C++, Python, JavaScript/TypeScript, Rust, Go, Java, shell,
// JSON). Unknown languages get strings and numbers only.
#pragma once

#include <QRegularExpression>
#include <QSyntaxHighlighter>
#include <QTextCharFormat>

#include <vector>

namespace hearth::ui {

class SyntaxHighlighter final : public QSyntaxHighlighter {
public:
    SyntaxHighlighter(QTextDocument* document, const QString& language, bool dark);

protected:
    void highlightBlock(const QString& text) override;

private:
    struct Rule {
        QRegularExpression pattern;
        QTextCharFormat format;
    };
    std::vector<Rule> m_rules;
    QRegularExpression m_block_comment_start, m_block_comment_end;
    QTextCharFormat m_comment;
};

}  // namespace hearth::ui
