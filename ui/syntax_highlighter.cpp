#include "ui/syntax_highlighter.h"

#include <QColor>
#include <QStringList>

namespace hearth::ui {
namespace {

QStringList keywords(const QString& language) {
    const QString l = language.toLower();
    if (l == "python" || l == "py") {
        return {"and",      "as",     "assert", "async",    "await", "break",  "class",
                "continue", "def",    "del",    "elif",     "else",  "except", "False",
                "finally",  "for",    "from",   "global",   "if",    "import", "in",
                "is",       "lambda", "None",   "nonlocal", "not",   "or",     "pass",
                "raise",    "return", "True",   "try",      "while", "with",   "yield"};
    }
    if (l == "rust" || l == "rs") {
        return {"as",   "async",  "await", "break",  "const",  "continue", "crate",
                "else", "enum",   "fn",    "for",    "if",     "impl",     "in",
                "let",  "loop",   "match", "mod",    "move",   "mut",      "pub",
                "ref",  "return", "self",  "Self",   "static", "struct",   "trait",
                "true", "false",  "type",  "unsafe", "use",    "where",    "while"};
    }
    if (l == "go") {
        return {"break",     "case", "chan",    "const", "continue", "default", "defer",
                "else",      "for",  "func",    "go",    "goto",     "if",      "import",
                "interface", "map",  "package", "range", "return",   "select",  "struct",
                "switch",    "type", "var",     "nil",   "true",     "false"};
    }
    if (l == "bash" || l == "sh" || l == "shell" || l == "zsh") {
        return {"if",   "then", "else", "elif",     "fi", "for",    "while", "do",
                "done", "case", "esac", "function", "in", "return", "local", "export"};
    }
    if (l == "json") return {"true", "false", "null"};
    if (l.isEmpty() || l == "text" || l == "plain") return {};
    // C, C++, Java, JavaScript, TypeScript and relatives share most of their keywords.
    return {"auto",   "bool",      "break",    "case",    "catch",   "char",      "class",
            "const",  "constexpr", "continue", "default", "delete",  "do",        "double",
            "else",   "enum",      "export",   "extends", "false",   "final",     "float",
            "for",    "function",  "if",       "import",  "int",     "interface", "let",
            "long",   "namespace", "new",      "null",    "nullptr", "private",   "protected",
            "public", "return",    "short",    "static",  "struct",  "switch",    "template",
            "this",   "throw",     "true",     "try",     "typedef", "typename",  "unsigned",
            "using",  "var",       "virtual",  "void",    "while",   "async",     "await",
            "const",  "undefined", "include",  "package"};
}

QTextCharFormat colored(const QColor& color, bool bold = false, bool italic = false) {
    QTextCharFormat format;
    format.setForeground(color);
    if (bold) format.setFontWeight(QFont::Bold);
    format.setFontItalic(italic);
    return format;
}

bool hash_comments(const QString& language) {
    const QString l = language.toLower();
    return l == "python" || l == "py" || l == "bash" || l == "sh" || l == "shell" || l == "zsh" ||
           l == "yaml" || l == "toml" || l == "ruby";
}

}  // namespace

SyntaxHighlighter::SyntaxHighlighter(QTextDocument* document, const QString& language, bool dark)
    : QSyntaxHighlighter(document) {
    const QColor keyword = dark ? QColor(0xc6, 0x78, 0xdd) : QColor(0x7a, 0x1f, 0xa2);
    const QColor string = dark ? QColor(0x98, 0xc3, 0x79) : QColor(0x1a, 0x7f, 0x37);
    const QColor number = dark ? QColor(0xd1, 0x9a, 0x66) : QColor(0xa3, 0x4a, 0x00);
    const QColor comment = dark ? QColor(0x7f, 0x84, 0x8e) : QColor(0x6a, 0x73, 0x7d);
    const QStringList words = keywords(language);
    if (!words.isEmpty()) {
        m_rules.push_back(
            {QRegularExpression("\\b(" + words.join('|') + ")\\b"), colored(keyword, true)});
    }
    m_rules.push_back({QRegularExpression("\\b(0x[0-9a-fA-F]+|\\d+(\\.\\d+)?([eE][-+]?\\d+)?)\\b"),
                       colored(number)});
    m_rules.push_back({QRegularExpression(R"("(\\.|[^"\\])*"|'(\\.|[^'\\])*')"), colored(string)});
    m_comment = colored(comment, false, true);
    if (hash_comments(language)) {
        m_rules.push_back({QRegularExpression("#[^\n]*"), m_comment});
    } else if (!words.isEmpty() && language.toLower() != "json") {
        m_rules.push_back({QRegularExpression("//[^\n]*"), m_comment});
        m_block_comment_start = QRegularExpression("/\\*");
        m_block_comment_end = QRegularExpression("\\*/");
    }
}

void SyntaxHighlighter::highlightBlock(const QString& text) {
    for (const auto& rule : m_rules) {
        for (auto it = rule.pattern.globalMatch(text); it.hasNext();) {
            const auto match = it.next();
            setFormat(static_cast<int>(match.capturedStart()),
                      static_cast<int>(match.capturedLength()), rule.format);
        }
    }
    // Block comments may span lines: state 1 means "inside a comment" at the line's end.
    setCurrentBlockState(0);
    if (!m_block_comment_start.isValid() || m_block_comment_start.pattern().isEmpty()) return;
    qsizetype start = previousBlockState() == 1 ? 0 : text.indexOf(m_block_comment_start);
    while (start >= 0) {
        const auto end = m_block_comment_end.match(text, start);
        qsizetype length;
        if (end.hasMatch()) {
            length = end.capturedEnd() - start;
        } else {
            setCurrentBlockState(1);
            length = text.size() - start;
        }
        setFormat(static_cast<int>(start), static_cast<int>(length), m_comment);
        start = text.indexOf(m_block_comment_start, start + length);
    }
}

}  // namespace hearth::ui
