#include "engine/text/jinja/expression_lexer.h"

#include <cctype>
#include <stdexcept>

#include "engine/text/unicode.h"

namespace hearth::jinja {
namespace {

// Splits the inside of one tag into tokens.
class ExpressionLexer {
public:
    ExpressionLexer(std::string_view source, int line) : m_source(source), m_line(line) {}

    std::vector<Token> tokens() {
        std::vector<Token> out;
        while (true) {
            while (m_position < m_source.size() &&
                   std::isspace(static_cast<unsigned char>(m_source[m_position])))
                ++m_position;
            if (m_position >= m_source.size()) break;
            out.push_back(next());
        }
        out.push_back({Token::Kind::End, "", {}});
        return out;
    }

private:
    [[noreturn]] void fail(const std::string& what) const {
        throw RenderError("template line " + std::to_string(m_line) + ": " + what);
    }

    Token next() {
        const char c = m_source[m_position];
        if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
            const size_t start = m_position;
            while (m_position < m_source.size() &&
                   (std::isalnum(static_cast<unsigned char>(m_source[m_position])) ||
                    m_source[m_position] == '_')) {
                ++m_position;
            }
            return {Token::Kind::Name, std::string(m_source.substr(start, m_position - start)), {}};
        }
        if (std::isdigit(static_cast<unsigned char>(c))) return number();
        if (c == '\'' || c == '"') return string(c);
        for (const char* op : {"==", "!=", "<=", ">=", "//", "**"}) {
            if (m_source.substr(m_position, 2) == op) {
                m_position += 2;
                return {Token::Kind::Operator, op, {}};
            }
        }
        if (std::string_view("()[]{}.,:|~+-*/%<>=").find(c) != std::string_view::npos) {
            ++m_position;
            return {Token::Kind::Operator, std::string(1, c), {}};
        }
        fail(std::string("unexpected character '") + c + "'");
    }

    Token number() {
        const size_t start = m_position;
        bool is_float = false;
        while (m_position < m_source.size() &&
               (std::isdigit(static_cast<unsigned char>(m_source[m_position])) ||
                m_source[m_position] == '_' ||
                (m_source[m_position] == '.' && m_position + 1 < m_source.size() &&
                 std::isdigit(static_cast<unsigned char>(m_source[m_position + 1]))))) {
            is_float = is_float || m_source[m_position] == '.';
            ++m_position;
        }
        std::string digits(m_source.substr(start, m_position - start));
        std::erase(digits, '_');
        try {
            if (is_float) return {Token::Kind::Float, digits, Value(std::stod(digits))};
            return {Token::Kind::Integer, digits, Value(static_cast<int64_t>(std::stoll(digits)))};
        } catch (const std::out_of_range&) {
            fail("the number " + digits + " is too large");
        }
    }

    // Python string literals: both quotes, the usual escapes and \uXXXX.
    Token string(char quote) {
        ++m_position;
        std::string out;
        while (true) {
            if (m_position >= m_source.size()) fail("unterminated string");
            const char c = m_source[m_position++];
            if (c == quote) break;
            if (c != '\\') {
                out += c;
                continue;
            }
            if (m_position >= m_source.size()) fail("unterminated string");
            const char e = m_source[m_position++];
            switch (e) {
                case 'n':
                    out += '\n';
                    break;
                case 't':
                    out += '\t';
                    break;
                case 'r':
                    out += '\r';
                    break;
                case '0':
                    out += '\0';
                    break;
                case '\\':
                    out += '\\';
                    break;
                case '\'':
                    out += '\'';
                    break;
                case '"':
                    out += '"';
                    break;
                case '\n':
                    break;
                case 'u':
                case 'x': {
                    const size_t digits = e == 'u' ? 4 : 2;
                    const std::string hex(m_source.substr(m_position, digits));
                    if (hex.size() != digits ||
                        hex.find_first_not_of("0123456789abcdefABCDEF") != std::string::npos)
                        fail("bad \\" + std::string(1, e) + " escape");
                    const auto code = std::stoul(hex, nullptr, 16);
                    m_position += digits;
                    unicode::append_utf8(out, static_cast<char32_t>(code));
                    break;
                }
                default:
                    out += '\\';
                    out += e;
            }
        }
        return {Token::Kind::String, out, Value(out)};
    }

    std::string_view m_source;
    int m_line;
    size_t m_position = 0;
};

}  // namespace

std::vector<Token> tokenize(std::string_view source, int line) {
    return ExpressionLexer(source, line).tokens();
}

}  // namespace hearth::jinja
