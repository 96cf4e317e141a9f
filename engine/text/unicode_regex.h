// A small backtracking regular-expression engine over code points, enough for the
// pre-tokenizer patterns models ship: alternation, (?:…) groups, (?!…)/(?=…) lookahead,
// classes with ranges and \p{L} \p{N} \p{P} \p{S} \p{M} \s \S, greedy ? * + {n,m}, and $.
// Matching is leftmost, first alternative that succeeds — as PCRE and Oniguruma do.
#pragma once

#include <cstddef>
#include <string_view>
#include <utility>
#include <vector>

namespace hearth {

class UnicodeRegex final {
public:
    // Throws std::invalid_argument naming the position of anything it cannot parse.
    explicit UnicodeRegex(std::string_view pattern);

    // The first non-empty match in text[begin, end) as [first, second); {end, end} when none.
    std::pair<size_t, size_t> find(const std::vector<char32_t>& text, size_t begin,
                                   size_t end) const;

    struct CharClass {
        std::vector<std::pair<char32_t, char32_t>> ranges;
        unsigned categories = 0;           // any of these categories matches
        unsigned excluded_categories = 0;  // \S inside a class: anything not whitespace matches
        bool negated = false;
        bool matches(char32_t c) const;
    };

private:
    struct Item {
        enum class Kind { Class, Group, LookAhead, NegativeLookAhead, End };
        Kind kind = Kind::Class;
        CharClass character_class;
        int group = -1;  // index into m_groups for Group and lookaheads
        int minimum = 1;
        int maximum = 1;
    };
    using Sequence = std::vector<Item>;
    using Alternation = std::vector<Sequence>;

    class Parser;
    class Matcher;

    std::vector<Alternation> m_groups;  // m_groups[0] is the whole pattern
};

}  // namespace hearth
