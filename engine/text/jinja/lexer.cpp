#include "engine/text/jinja/lexer.h"

#include <algorithm>

#include "engine/text/jinja/value.h"

namespace hearth::jinja {
namespace {

std::string normalise_newlines(std::string_view source) {
    std::string out;
    out.reserve(source.size());
    for (size_t i = 0; i < source.size(); ++i) {
        if (source[i] == '\r') {
            out += '\n';
            if (i + 1 < source.size() && source[i + 1] == '\n') ++i;
        } else {
            out += source[i];
        }
    }
    // keep_trailing_newline=False: one final newline is dropped.
    if (!out.empty() && out.back() == '\n') out.pop_back();
    return out;
}

bool is_space(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

// Finds the closing delimiter of a tag, skipping string literals inside it.
size_t find_close(const std::string& source, size_t from, std::string_view close) {
    char quote = 0;
    for (size_t i = from; i + 1 < source.size() + 1; ++i) {
        const char c = source[i];
        if (quote != 0) {
            if (c == '\\')
                ++i;
            else if (c == quote)
                quote = 0;
            continue;
        }
        if (c == '\'' || c == '"')
            quote = c;
        else if (source.compare(i, close.size(), close) == 0)
            return i;
    }
    return std::string::npos;
}

// The next "{{", "{%" or "{#" from `from`, or the end. One pass: searching for each opener
// separately would rescan the rest of the source for every tag.
size_t find_open(const std::string& source, size_t from) {
    for (size_t at = source.find('{', from); at != std::string::npos;
         at = source.find('{', at + 1)) {
        if (at + 1 < source.size() &&
            std::string_view("{%#").find(source[at + 1]) != std::string_view::npos)
            return at;
    }
    return source.size();
}

}  // namespace

std::vector<Segment> split_template(std::string_view raw_source) {
    const std::string source = normalise_newlines(raw_source);
    std::vector<Segment> segments;
    size_t position = 0;
    bool strip_next = false;
    int line = 1;
    size_t counted = 0;  // where `line` was counted up to
    while (position <= source.size()) {
        const size_t open = find_open(source, position);
        std::string text = source.substr(position, open - position);
        if (strip_next)
            text.erase(0, std::find_if_not(text.begin(), text.end(), is_space) - text.begin());
        strip_next = false;
        // Lines counted since the last tag only, so the whole split stays linear.
        line += static_cast<int>(std::count(source.begin() + static_cast<long>(counted),
                                            source.begin() + static_cast<long>(open), '\n'));
        counted = open;
        if (open == source.size()) {
            if (!text.empty()) segments.push_back({Segment::Kind::Text, text, line});
            break;
        }
        const char kind = source[open + 1];
        const bool block = kind == '%' || kind == '#';
        size_t inner = open + 2;
        const char modifier = inner < source.size() ? source[inner] : '\0';
        if (modifier == '-') {
            text.erase(std::find_if_not(text.rbegin(), text.rend(), is_space).base(), text.end());
        } else if (block && modifier != '+') {
            // lstrip_blocks: spaces and tabs between the line start and a block tag go.
            size_t start = open;
            while (start > position && (source[start - 1] == ' ' || source[start - 1] == '\t'))
                --start;
            if (start == 0 || source[start - 1] == '\n')
                text.erase(text.size() - std::min(text.size(), open - start));
        }
        if (modifier == '-' || modifier == '+') ++inner;
        if (!text.empty()) segments.push_back({Segment::Kind::Text, text, line});

        const std::string_view close = kind == '{' ? "}}" : kind == '%' ? "%}" : "#}";
        const size_t end =
            kind == '#' ? source.find("#}", inner) : find_close(source, inner, close);
        if (end == std::string::npos) {
            throw RenderError("template line " + std::to_string(line) + ": unterminated tag");
        }
        size_t content_end = end;
        if (content_end > inner && source[content_end - 1] == '-') {
            --content_end;
            strip_next = true;
        }
        if (kind != '#') {
            segments.push_back({kind == '{' ? Segment::Kind::Expression : Segment::Kind::Statement,
                                source.substr(inner, content_end - inner), line});
        }
        position = end + 2;
        // trim_blocks: the first newline after a block tag goes.
        if (block && !strip_next && position < source.size() && source[position] == '\n')
            ++position;
    }
    return segments;
}

}  // namespace hearth::jinja
