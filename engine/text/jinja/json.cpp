#include "engine/text/jinja/json.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "engine/text/unicode.h"

namespace hearth::jinja {
namespace {

constexpr int kMaxDepth = 512;

class JsonReader {
public:
    explicit JsonReader(std::string_view text) : m_text(text) {}

    Value document() {
        Value value = parse_value(0);
        skip_space();
        if (m_position != m_text.size()) fail("unexpected text after the JSON value");
        return value;
    }

private:
    [[noreturn]] void fail(const std::string& what) const {
        throw std::invalid_argument("invalid JSON at byte " + std::to_string(m_position) + ": " +
                                    what);
    }
    void skip_space() {
        while (m_position < m_text.size() &&
               (m_text[m_position] == ' ' || m_text[m_position] == '\n' ||
                m_text[m_position] == '\r' || m_text[m_position] == '\t')) {
            ++m_position;
        }
    }
    bool consume(std::string_view word) {
        if (m_text.substr(m_position, word.size()) != word) return false;
        m_position += word.size();
        return true;
    }
    char peek() const { return m_position < m_text.size() ? m_text[m_position] : '\0'; }

    Value parse_value(int depth) {
        if (depth > kMaxDepth) fail("nested too deeply");
        skip_space();
        const char c = peek();
        if (c == '{') return parse_object(depth);
        if (c == '[') return parse_array(depth);
        if (c == '"') return Value(parse_string());
        if (consume("true")) return Value(true);
        if (consume("false")) return Value(false);
        if (consume("null")) return Value(None{});
        if (c == '-' || (c >= '0' && c <= '9')) return parse_number();
        fail("expected a value");
    }

    Value parse_object(int depth) {
        ++m_position;
        Object object;
        skip_space();
        if (consume("}")) return Value(std::move(object));
        while (true) {
            skip_space();
            if (peek() != '"') fail("expected a key");
            std::string key = parse_string();
            skip_space();
            if (!consume(":")) fail("expected ':'");
            object.set(key, parse_value(depth + 1));
            skip_space();
            if (consume("}")) return Value(std::move(object));
            if (!consume(",")) fail("expected ',' or '}'");
        }
    }

    Value parse_array(int depth) {
        ++m_position;
        Array array;
        skip_space();
        if (consume("]")) return Value(std::move(array));
        while (true) {
            array.push_back(parse_value(depth + 1));
            skip_space();
            if (consume("]")) return Value(std::move(array));
            if (!consume(",")) fail("expected ',' or ']'");
        }
    }

    Value parse_number() {
        const size_t start = m_position;
        if (peek() == '-') ++m_position;
        bool is_float = false;
        while (m_position < m_text.size()) {
            const char c = m_text[m_position];
            if (c == '.' || c == 'e' || c == 'E' || c == '+' || (c == '-' && m_position > start))
                is_float = true;
            else if (!(c >= '0' && c <= '9'))
                break;
            ++m_position;
        }
        const std::string digits(m_text.substr(start, m_position - start));
        try {
            if (!is_float) return Value(static_cast<int64_t>(std::stoll(digits)));
            return Value(std::stod(digits));
        } catch (const std::exception&) {
            fail("bad number '" + digits + "'");
        }
    }

    unsigned parse_hex4() {
        if (m_position + 4 > m_text.size()) fail("short \\u escape");
        unsigned value = 0;
        for (int i = 0; i < 4; ++i) {
            const char c = m_text[m_position++];
            value <<= 4;
            if (c >= '0' && c <= '9')
                value |= static_cast<unsigned>(c - '0');
            else if (c >= 'a' && c <= 'f')
                value |= static_cast<unsigned>(c - 'a' + 10);
            else if (c >= 'A' && c <= 'F')
                value |= static_cast<unsigned>(c - 'A' + 10);
            else
                fail("bad \\u escape");
        }
        return value;
    }

    std::string parse_string() {
        ++m_position;
        std::string out;
        while (true) {
            if (m_position >= m_text.size()) fail("unterminated string");
            const char c = m_text[m_position++];
            if (c == '"') return out;
            if (c != '\\') {
                out += c;
                continue;
            }
            if (m_position >= m_text.size()) fail("unterminated escape");
            const char escape = m_text[m_position++];
            switch (escape) {
                case '"':
                    out += '"';
                    break;
                case '\\':
                    out += '\\';
                    break;
                case '/':
                    out += '/';
                    break;
                case 'b':
                    out += '\b';
                    break;
                case 'f':
                    out += '\f';
                    break;
                case 'n':
                    out += '\n';
                    break;
                case 'r':
                    out += '\r';
                    break;
                case 't':
                    out += '\t';
                    break;
                case 'u': {
                    char32_t code = parse_hex4();
                    if (code >= 0xD800 && code <= 0xDBFF && consume("\\u")) {
                        const unsigned low = parse_hex4();
                        code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
                    }
                    unicode::append_utf8(out, code);
                    break;
                }
                default:
                    fail("unknown escape");
            }
        }
    }

    std::string_view m_text;
    size_t m_position = 0;
};

void dump_string(const std::string& text, std::string& out) {
    static const char* digits = "0123456789abcdef";
    out += '"';
    for (const char c : text) {
        switch (c) {
            case '"':
                out += "\\\"";
                break;
            case '\\':
                out += "\\\\";
                break;
            case '\n':
                out += "\\n";
                break;
            case '\r':
                out += "\\r";
                break;
            case '\t':
                out += "\\t";
                break;
            case '\b':
                out += "\\b";
                break;
            case '\f':
                out += "\\f";
                break;
            default:
                if (static_cast<unsigned char>(c) < 0x20) {
                    out += "\\u00";
                    out += digits[(c >> 4) & 15];
                    out += digits[c & 15];
                } else {
                    out += c;
                }
        }
    }
    out += '"';
}

// Checks the depth before descending and the length before each indent and after each item,
// so a huge, deep or self-holding value fails before its text takes much memory.
void dump(const Value& value, const JsonStyle& style, const Limits& limits, size_t depth,
          std::string& out) {
    check_nesting_depth(limits, depth);
    const auto newline = [&](size_t level) {
        if (!style.indent) return;
        out += '\n';
        // Python indents by nothing for a negative indent.
        const size_t width =
            saturating_multiply(static_cast<size_t>(std::max(*style.indent, 0)), level);
        check_string_bytes(limits, out.size() + width);
        out.append(width, ' ');
    };
    // With an indent, Python ends items with a bare "," before the newline.
    const std::string separator =
        style.indent && style.item_separator == ", " ? "," : style.item_separator;
    if (value.is_none() || value.is_undefined()) {
        out += "null";
    } else if (value.is_bool()) {
        out += value.as_bool() ? "true" : "false";
    } else if (value.is_int()) {
        out += std::to_string(value.as_int());
    } else if (value.is_float()) {
        const double number = value.as_float();
        out += std::isnan(number)   ? "NaN"
               : std::isinf(number) ? (number > 0 ? "Infinity" : "-Infinity")
                                    : format_float(number);
    } else if (value.is_string()) {
        check_string_bytes(limits, out.size() + value.as_string().size());
        dump_string(value.as_string(), out);
    } else if (value.is_array()) {
        const auto& items = value.as_array();
        if (items.empty()) {
            out += "[]";
            return;
        }
        out += '[';
        for (size_t i = 0; i < items.size(); ++i) {
            if (i) out += separator;
            newline(depth + 1);
            dump(items[i], style, limits, depth + 1, out);
        }
        newline(depth);
        out += ']';
    } else if (value.is_object() || value.is_namespace()) {
        auto entries = value.is_object() ? value.as_object().entries()
                                         : value.as_namespace().attributes.entries();
        if (entries.empty()) {
            out += "{}";
            return;
        }
        if (style.sort_keys) {
            std::stable_sort(entries.begin(), entries.end(),
                             [](const auto& a, const auto& b) { return a.first < b.first; });
        }
        out += '{';
        for (size_t i = 0; i < entries.size(); ++i) {
            if (i) out += separator;
            newline(depth + 1);
            dump_string(entries[i].first, out);
            out += style.key_separator;
            dump(entries[i].second, style, limits, depth + 1, out);
        }
        newline(depth);
        out += '}';
    } else {
        throw RenderError("Object of type " + value.type_name() + " is not JSON serializable");
    }
    check_string_bytes(limits, out.size());
}

}  // namespace

Value parse_json(std::string_view text) {
    return JsonReader(text).document();
}

std::string dump_json(const Value& value, const JsonStyle& style, const Limits& limits) {
    std::string out;
    dump(value, style, limits, 0, out);
    return out;
}

}  // namespace hearth::jinja
