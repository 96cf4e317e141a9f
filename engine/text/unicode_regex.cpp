#include "engine/text/unicode_regex.h"

#include <functional>
#include <stdexcept>
#include <string>

#include "engine/text/unicode.h"

namespace hearth {
namespace {

constexpr unsigned kLetter = 1;
constexpr unsigned kNumber = 2;
constexpr unsigned kPunctuation = 4;
constexpr unsigned kSymbol = 8;
constexpr unsigned kMark = 16;
constexpr unsigned kWhitespace = 32;

unsigned categories_of(char32_t c) {
    unsigned found = 0;
    if (unicode::is_letter(c)) found |= kLetter;
    if (unicode::is_number(c)) found |= kNumber;
    if (unicode::is_punctuation(c)) found |= kPunctuation;
    if (unicode::is_symbol(c)) found |= kSymbol;
    if (unicode::is_mark(c)) found |= kMark;
    if (unicode::is_whitespace(c)) found |= kWhitespace;
    return found;
}

constexpr int kUnbounded = 1 << 30;

}  // namespace

bool UnicodeRegex::CharClass::matches(char32_t c) const {
    bool found = false;
    for (const auto& [low, high] : ranges) {
        if (c >= low && c <= high) {
            found = true;
            break;
        }
    }
    if (!found && (categories != 0 || excluded_categories != 0)) {
        const unsigned of = categories_of(c);
        found =
            (of & categories) != 0 || (excluded_categories != 0 && (of & excluded_categories) == 0);
    }
    return found != negated;
}

class UnicodeRegex::Parser {
public:
    Parser(std::string_view pattern, std::vector<Alternation>& groups)
        : m_pattern(unicode::decode_utf8(pattern)), m_groups(groups) {}

    void parse() {
        m_groups.emplace_back();
        parse_alternation(0);
        if (m_position != m_pattern.size()) fail("unbalanced ')'");
    }

private:
    [[noreturn]] void fail(const std::string& what) const {
        throw std::invalid_argument("regex: " + what + " at position " +
                                    std::to_string(m_position));
    }
    bool at_end() const { return m_position >= m_pattern.size(); }
    char32_t peek() const { return at_end() ? 0 : m_pattern[m_position]; }
    char32_t next() {
        if (at_end()) fail("unexpected end of pattern");
        return m_pattern[m_position++];
    }
    bool accept(char32_t c) {
        if (peek() != c || at_end()) return false;
        ++m_position;
        return true;
    }

    void parse_alternation(int group) {
        m_groups[group].emplace_back();
        while (!at_end() && peek() != ')') {
            if (accept('|')) {
                m_groups[group].emplace_back();
                continue;
            }
            Item item = parse_atom();
            parse_quantifier(item);
            m_groups[group].back().push_back(std::move(item));
        }
    }

    Item parse_atom() {
        Item item;
        const char32_t c = next();
        if (c == '(') {
            item.kind = Item::Kind::Group;
            if (accept('?')) {
                const char32_t kind = next();
                if (kind == '!')
                    item.kind = Item::Kind::NegativeLookAhead;
                else if (kind == '=')
                    item.kind = Item::Kind::LookAhead;
                else if (kind != ':')
                    fail("unsupported group kind");
            }
            item.group = static_cast<int>(m_groups.size());
            m_groups.emplace_back();
            parse_alternation(item.group);
            if (!accept(')')) fail("missing ')'");
        } else if (c == '[') {
            item.character_class = parse_class();
        } else if (c == '$') {
            item.kind = Item::Kind::End;
        } else if (c == '.') {
            item.character_class.ranges = {{'\n', '\n'}};
            item.character_class.negated = true;
        } else if (c == '\\') {
            parse_escape(item.character_class);
        } else {
            item.character_class.ranges.emplace_back(c, c);
        }
        return item;
    }

    void parse_quantifier(Item& item) {
        if (accept('?')) {
            item.minimum = 0;
        } else if (accept('*')) {
            item.minimum = 0;
            item.maximum = kUnbounded;
        } else if (accept('+')) {
            item.maximum = kUnbounded;
        } else if (accept('{')) {
            item.minimum = parse_number();
            item.maximum =
                accept(',') ? (peek() == '}' ? kUnbounded : parse_number()) : item.minimum;
            if (!accept('}') || item.maximum < item.minimum) fail("bad {n,m} quantifier");
        } else {
            return;
        }
        if (item.kind == Item::Kind::End || item.kind == Item::Kind::LookAhead ||
            item.kind == Item::Kind::NegativeLookAhead) {
            fail("quantifier on an assertion");
        }
    }

    int parse_number() {
        int value = 0;
        if (!(peek() >= '0' && peek() <= '9')) fail("expected a number");
        while (peek() >= '0' && peek() <= '9') value = value * 10 + static_cast<int>(next() - '0');
        return value;
    }

    // One escape: a category, a class shorthand or a literal character.
    void parse_escape(CharClass& into) {
        const char32_t c = next();
        switch (c) {
            case 'p': {
                if (!accept('{')) fail("expected '{' after \\p");
                const char32_t name = next();
                if (!accept('}')) fail("only one-letter categories are supported");
                const unsigned category = name == 'L'   ? kLetter
                                          : name == 'N' ? kNumber
                                          : name == 'P' ? kPunctuation
                                          : name == 'S' ? kSymbol
                                          : name == 'M' ? kMark
                                                        : 0;
                if (category == 0) fail("unknown category");
                into.categories |= category;
                return;
            }
            case 's':
                into.categories |= kWhitespace;
                return;
            case 'S':
                into.excluded_categories |= kWhitespace;
                return;
            case 'd':
                into.ranges.emplace_back('0', '9');
                return;
            case 'r':
                into.ranges.emplace_back('\r', '\r');
                return;
            case 'n':
                into.ranges.emplace_back('\n', '\n');
                return;
            case 't':
                into.ranges.emplace_back('\t', '\t');
                return;
            default:
                into.ranges.emplace_back(c, c);
                return;
        }
    }

    CharClass parse_class() {
        CharClass result;
        result.negated = accept('^');
        bool first = true;
        while (first || peek() != ']') {
            first = false;
            if (at_end()) fail("missing ']'");
            char32_t low = next();
            if (low == '\\') {
                CharClass escaped;
                parse_escape(escaped);
                result.categories |= escaped.categories;
                result.excluded_categories |= escaped.excluded_categories;
                if (escaped.ranges.size() != 1 || escaped.categories ||
                    escaped.excluded_categories) {
                    result.ranges.insert(result.ranges.end(), escaped.ranges.begin(),
                                         escaped.ranges.end());
                    continue;
                }
                low = escaped.ranges.front().first;
            }
            char32_t high = low;
            if (peek() == '-' && m_position + 1 < m_pattern.size() &&
                m_pattern[m_position + 1] != ']') {
                ++m_position;
                high = next();
                if (high == '\\') high = next();
                if (high < low) fail("reversed range");
            }
            result.ranges.emplace_back(low, high);
        }
        ++m_position;
        return result;
    }

    std::vector<char32_t> m_pattern;
    size_t m_position = 0;
    std::vector<Alternation>& m_groups;
};

// Backtracking with continuations: each step receives "what must match after me".
class UnicodeRegex::Matcher {
public:
    using Continuation = std::function<bool(size_t)>;

    Matcher(const std::vector<Alternation>& groups, const std::vector<char32_t>& text, size_t end)
        : m_groups(groups), m_text(text), m_end(end) {}

    bool alternation(int group, size_t position, const Continuation& then) const {
        for (const auto& sequence : m_groups[group]) {
            if (this->sequence(sequence, 0, position, then)) return true;
        }
        return false;
    }

private:
    bool sequence(const Sequence& items, size_t index, size_t position,
                  const Continuation& then) const {
        if (index == items.size()) return then(position);
        const Item& item = items[index];
        switch (item.kind) {
            case Item::Kind::End:
                return position == m_end && sequence(items, index + 1, position, then);
            case Item::Kind::LookAhead:
            case Item::Kind::NegativeLookAhead: {
                const bool found = alternation(item.group, position, [](size_t) { return true; });
                const bool wanted = item.kind == Item::Kind::LookAhead;
                return found == wanted && sequence(items, index + 1, position, then);
            }
            case Item::Kind::Class:
                return repeat_class(items, index, position, then);
            case Item::Kind::Group:
                return repeat_group(items, index, 0, position, then);
        }
        return false;
    }

    // Greedy: take as many characters as allowed, then give them back one by one.
    bool repeat_class(const Sequence& items, size_t index, size_t position,
                      const Continuation& then) const {
        const Item& item = items[index];
        size_t count = 0;
        while (count < static_cast<size_t>(item.maximum) && position + count < m_end &&
               item.character_class.matches(m_text[position + count])) {
            ++count;
        }
        for (size_t taken = count + 1; taken-- > static_cast<size_t>(item.minimum);) {
            if (sequence(items, index + 1, position + taken, then)) return true;
        }
        return false;
    }

    bool repeat_group(const Sequence& items, size_t index, int count, size_t position,
                      const Continuation& then) const {
        const Item& item = items[index];
        if (count < item.maximum) {
            const bool matched = alternation(item.group, position, [&](size_t after) {
                return after != position && repeat_group(items, index, count + 1, after, then);
            });
            if (matched) return true;
        }
        return count >= item.minimum && sequence(items, index + 1, position, then);
    }

    const std::vector<Alternation>& m_groups;
    const std::vector<char32_t>& m_text;
    size_t m_end;
};

UnicodeRegex::UnicodeRegex(std::string_view pattern) {
    Parser(pattern, m_groups).parse();
}

std::pair<size_t, size_t> UnicodeRegex::find(const std::vector<char32_t>& text, size_t begin,
                                             size_t end) const {
    const Matcher matcher(m_groups, text, end);
    for (size_t start = begin; start < end; ++start) {
        size_t match_end = start;
        const bool found = matcher.alternation(0, start, [&](size_t after) {
            match_end = after;
            return after > start;
        });
        if (found) return {start, match_end};
    }
    return {end, end};
}

}  // namespace hearth
