#include "engine/text/jinja/access.h"

#include <algorithm>

#include "engine/text/unicode.h"

namespace hearth::jinja {
namespace {

[[noreturn]] void undefined_error(const Value& value) {
    throw RenderError(value.undefined_hint().empty() ? "value is undefined"
                                                     : value.undefined_hint());
}

std::string string_argument(const CallArguments& args, size_t index, const char* name,
                            const char* method) {
    const Value& value = args.get(index, name);
    if (value.is_undefined() || value.is_none()) return {};
    if (!value.is_string())
        throw RenderError(std::string(method) + "() argument must be str, not " +
                          value.type_name());
    return value.as_string();
}

std::vector<std::string> split(const std::string& text, const Value& separator, int64_t max_split,
                               const Limits& limits) {
    std::vector<std::string> parts;
    const auto add = [&](std::string part) {
        check_list_items(limits, parts.size() + 1);
        parts.push_back(std::move(part));
    };
    if (separator.is_undefined() || separator.is_none()) {  // runs of whitespace, ends ignored
        const auto points = unicode::decode_utf8(text);
        size_t i = 0;
        while (i < points.size()) {
            while (i < points.size() && is_python_space(points[i])) ++i;
            if (i == points.size()) break;
            size_t j = i;
            if (max_split >= 0 && static_cast<int64_t>(parts.size()) == max_split)
                j = points.size();
            else
                while (j < points.size() && !is_python_space(points[j])) ++j;
            add(unicode::encode_utf8(points, i, j));
            i = j;
        }
        return parts;
    }
    const std::string& sep = separator.as_string();
    if (sep.empty()) throw RenderError("empty separator");
    size_t start = 0;
    for (size_t found; (found = text.find(sep, start)) != std::string::npos;) {
        if (max_split >= 0 && static_cast<int64_t>(parts.size()) == max_split) break;
        add(text.substr(start, found - start));
        start = found + sep.size();
    }
    add(text.substr(start));
    return parts;
}

// str.replace, sized before it is built.
std::string replace(const std::string& text, const std::string& from, const std::string& to,
                    int64_t count, const Limits& limits) {
    if (from.empty()) return text;
    size_t matches = 0;
    for (size_t at = text.find(from); at != std::string::npos && count != 0;
         at = text.find(from, at + from.size()), --count)
        ++matches;
    const size_t grown = saturating_multiply(matches, to.size());
    check_string_bytes(limits, text.size() - matches * from.size() + grown);
    std::string out;
    size_t start = 0;
    for (size_t i = 0; i < matches; ++i) {
        const size_t found = text.find(from, start);
        out += text.substr(start, found - start) + to;
        start = found + from.size();
    }
    return out + text.substr(start);
}

Value string_method(const std::string& text, const std::string& name, const Limits& limits) {
    const auto bind = [&](auto body) {
        return Value(Function(
            [text, body, limits](const CallArguments& args) { return body(text, args, limits); }));
    };
    if (name == "strip" || name == "lstrip" || name == "rstrip") {
        const bool left = name != "rstrip", right = name != "lstrip";
        return bind([left, right](const std::string& s, const CallArguments& args, const Limits&) {
            return Value(strip(s, string_argument(args, 0, "chars", "strip"), left, right));
        });
    }
    if (name == "split") {
        return bind([](const std::string& s, const CallArguments& args, const Limits& limits) {
            const Value& most = args.get(1, "maxsplit");
            Array out;
            for (auto& part :
                 split(s, args.get(0, "sep"), most.is_int() ? most.as_int() : -1, limits))
                out.emplace_back(part);
            return Value(std::move(out));
        });
    }
    if (name == "startswith" || name == "endswith") {
        const bool starts = name == "startswith";
        return bind([starts](const std::string& s, const CallArguments& args, const Limits&) {
            const Value& wanted = args.get(0, "prefix");
            Array options = wanted.is_array() ? wanted.as_array() : Array{wanted};
            for (const auto& option : options) {
                if (!option.is_string()) throw RenderError("startswith/endswith needs strings");
                const auto& o = option.as_string();
                if (starts ? s.starts_with(o) : s.ends_with(o)) return Value(true);
            }
            return Value(false);
        });
    }
    if (name == "replace") {
        return bind([](const std::string& s, const CallArguments& args, const Limits& limits) {
            const Value& count = args.get(2, "count");
            return Value(replace(s, string_argument(args, 0, "old", "replace"),
                                 string_argument(args, 1, "new", "replace"),
                                 count.is_int() ? count.as_int() : -1, limits));
        });
    }
    if (name == "upper" || name == "lower") {
        const bool upper = name == "upper";
        return bind([upper](const std::string& s, const CallArguments&, const Limits&) {
            std::string out = s;
            for (char& c : out) {
                if (static_cast<unsigned char>(c) < 0x80)
                    c = static_cast<char>(upper ? std::toupper(c) : std::tolower(c));
            }
            return Value(out);
        });
    }
    if (name == "find" || name == "count") {
        const bool find = name == "find";
        return bind([find](const std::string& s, const CallArguments& args, const Limits&) {
            const std::string needle = string_argument(args, 0, "sub", "find");
            if (find) {
                const size_t at = s.find(needle);
                return Value(
                    at == std::string::npos
                        ? int64_t{-1}
                        : static_cast<int64_t>(unicode::decode_utf8(s.substr(0, at)).size()));
            }
            int64_t total = 0;
            for (size_t at = 0; !needle.empty() && (at = s.find(needle, at)) != std::string::npos;
                 at += needle.size())
                ++total;
            return Value(total);
        });
    }
    return Value(Undefined{"'str object' has no attribute '" + name + "'"});
}

Value object_method(const Value& object, const std::string& name) {
    if (name == "items" || name == "keys" || name == "values") {
        return Value(Function([object, name](const CallArguments&) {
            Array out;
            for (const auto& [key, value] : object.as_object().entries()) {
                if (name == "items")
                    out.emplace_back(Array{Value(key), value});
                else
                    out.push_back(name == "keys" ? Value(key) : value);
            }
            return Value(std::move(out));
        }));
    }
    if (name == "get") {
        return Value(Function([object](const CallArguments& args) {
            const Value& key = args.get(0, "key");
            const Value* found =
                key.is_string() ? object.as_object().find(key.as_string()) : nullptr;
            if (found != nullptr) return *found;
            const Value& fallback = args.get(1, "default");
            return fallback.is_undefined() ? Value(None{}) : fallback;
        }));
    }
    return Value(Undefined{"'dict object' has no attribute '" + name + "'"});
}

// Python index normalisation; nullopt when out of range.
std::optional<size_t> index_of(int64_t index, size_t size) {
    if (index < 0) index += static_cast<int64_t>(size);
    if (index < 0 || index >= static_cast<int64_t>(size)) return std::nullopt;
    return static_cast<size_t>(index);
}

}  // namespace

std::string strip(const std::string& text, const std::string& characters, bool left, bool right) {
    const auto points = unicode::decode_utf8(text);
    const auto chars = unicode::decode_utf8(characters);
    const auto strippable = [&](char32_t c) {
        return characters.empty() ? is_python_space(c)
                                  : std::find(chars.begin(), chars.end(), c) != chars.end();
    };
    size_t begin = 0, end = points.size();
    while (left && begin < end && strippable(points[begin])) ++begin;
    while (right && end > begin && strippable(points[end - 1])) --end;
    return unicode::encode_utf8(points, begin, end);
}

Value get_attribute(const Value& value, const std::string& name, const Limits& limits) {
    if (value.is_undefined()) undefined_error(value);
    if (value.is_object()) {
        if (const Value* found = value.as_object().find(name)) return *found;
        return object_method(value, name);
    }
    if (value.is_namespace()) {
        if (const Value* found = value.as_namespace().attributes.find(name)) return *found;
    }
    if (value.is_string()) return string_method(value.as_string(), name, limits);
    return Value(Undefined{"'" + value.type_name() + " object' has no attribute '" + name + "'"});
}

Value get_item(const Value& value, const Value& key, const Limits& limits) {
    if (value.is_undefined()) undefined_error(value);
    if (key.is_int() || key.is_bool()) {
        if (value.is_array()) {
            const auto& items = value.as_array();
            const auto index = index_of(key.as_int(), items.size());
            return index ? items[*index] : Value(Undefined{"list index out of range"});
        }
        if (value.is_string()) {
            const auto points = unicode::decode_utf8(value.as_string());
            const auto index = index_of(key.as_int(), points.size());
            return index ? Value(unicode::encode_utf8(points, *index, *index + 1))
                         : Value(Undefined{"string index out of range"});
        }
    }
    if (key.is_string()) {
        if (value.is_object()) {
            if (const Value* found = value.as_object().find(key.as_string())) return *found;
            return Value(Undefined{"'dict object' has no attribute '" + key.as_string() + "'"});
        }
        return get_attribute(value, key.as_string(), limits);
    }
    return Value(Undefined{"'" + value.type_name() + " object' has no item " + key.repr(limits)});
}

Value get_slice(const Value& value, std::optional<int64_t> start, std::optional<int64_t> stop,
                std::optional<int64_t> step) {
    if (value.is_undefined()) undefined_error(value);
    const int64_t stride = step.value_or(1);
    if (stride == 0) throw RenderError("slice step cannot be zero");
    std::vector<char32_t> points;
    const bool is_text = value.is_string();
    if (is_text)
        points = unicode::decode_utf8(value.as_string());
    else if (!value.is_array())
        throw RenderError("'" + value.type_name() + "' object is not subscriptable");
    const auto size = static_cast<int64_t>(is_text ? points.size() : value.as_array().size());
    const auto clamp = [&](std::optional<int64_t> bound, int64_t fallback) {
        if (!bound) return fallback;
        int64_t b = *bound < 0 ? *bound + size : *bound;
        return stride > 0 ? std::clamp<int64_t>(b, 0, size) : std::clamp<int64_t>(b, -1, size - 1);
    };
    const int64_t first = clamp(start, stride > 0 ? 0 : size - 1);
    const int64_t last = clamp(stop, stride > 0 ? size : -1);
    std::vector<int64_t> indexes;
    for (int64_t i = first; stride > 0 ? i < last : i > last; i += stride) indexes.push_back(i);
    if (is_text) {
        std::string out;
        for (const int64_t i : indexes) unicode::append_utf8(out, points[static_cast<size_t>(i)]);
        return Value(out);
    }
    Array out;
    for (const int64_t i : indexes) out.push_back(value.as_array()[static_cast<size_t>(i)]);
    return Value(std::move(out));
}

}  // namespace hearth::jinja
