#include "engine/text/jinja/filters.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <stdexcept>

#include "engine/text/jinja/access.h"
#include "engine/text/jinja/json.h"
#include "engine/text/jinja/parser.h"
#include "engine/text/unicode.h"

namespace hearth::jinja {
namespace {

// The arguments after the first `skip` positional ones, for select/reject style filters.
CallArguments rest_of(const CallArguments& args, size_t skip) {
    CallArguments rest;
    for (size_t i = skip; i < args.positional.size(); ++i)
        rest.positional.push_back(args.positional[i]);
    rest.named = args.named;
    return rest;
}

// Jinja's text filters take str() of their input, and str() of undefined is "".
std::string text_of(const Value& value, const Limits& limits) {
    return value.str(limits);
}

Value tojson(const Value& input, const CallArguments& args, const Limits& limits) {
    JsonStyle style;
    if (const Value& indent = args.get(0, "indent"); indent.is_int())
        style.indent = static_cast<int>(indent.as_int());
    if (const Value& separators = args.get(CallArguments::kKeywordOnly, "separators");
        separators.is_array() && separators.as_array().size() == 2) {
        style.item_separator = separators.as_array()[0].as_string();
        style.key_separator = separators.as_array()[1].as_string();
    }
    style.sort_keys = args.get(CallArguments::kKeywordOnly, "sort_keys").truthy();
    return Value(dump_json(input, style, limits));
}

Value select(const Value& input, const CallArguments& args, bool keep_matching, bool by_attribute,
             const Limits& limits) {
    Array out;
    const size_t skip = by_attribute ? 2 : 1;
    const Value& test = args.get(skip - 1, "");
    for (const auto& item : iterate(input, limits)) {
        const Value subject =
            by_attribute ? get_attribute(item, args.get(0, "").as_string(), limits) : item;
        const bool passed = test.is_string()
                                ? apply_test(test.as_string(), subject, rest_of(args, skip), limits)
                                : subject.truthy();
        if (passed == keep_matching) out.push_back(item);
    }
    return Value(std::move(out));
}

Value map(const Value& input, const CallArguments& args, const Limits& limits) {
    Array out;
    const Value& attribute = args.get(CallArguments::kKeywordOnly, "attribute");
    for (const auto& item : iterate(input, limits)) {
        if (attribute.is_string()) {
            Value found = get_attribute(item, attribute.as_string(), limits);
            if (found.is_undefined()) found = args.get(CallArguments::kKeywordOnly, "default");
            out.push_back(found);
        } else {
            out.push_back(
                apply_filter(args.get(0, "").as_string(), item, rest_of(args, 1), limits));
        }
    }
    return Value(std::move(out));
}

Value join(const Value& input, const CallArguments& args, const Limits& limits) {
    const Value& separator = args.get(0, "d");
    const Value& attribute = args.get(1, "attribute");
    const std::string between = separator.is_string() ? separator.as_string() : "";
    std::string out;
    bool first = true;
    for (const auto& item : iterate(input, limits)) {
        const std::string piece =
            (attribute.is_string() ? get_attribute(item, attribute.as_string(), limits) : item)
                .str(limits);
        check_string_bytes(limits, out.size() + (first ? 0 : between.size()) + piece.size());
        if (!first) out += between;
        first = false;
        out += piece;
    }
    return Value(out);
}

// Jinja's float filter: the default (0.0) for text that is not a number.
Value float_of(const Value& input, const CallArguments& args, const Limits& limits) {
    if (input.is_number()) return Value(input.as_float());
    try {
        return Value(std::stod(text_of(input, limits)));
    } catch (const std::logic_error&) {
        const Value& fallback = args.get(0, "default");
        return fallback.is_undefined() ? Value(0.0) : fallback;
    }
}

std::string change_case(const std::string& text, bool capitalize_only) {
    std::string out = text;
    bool start = true;
    for (char& c : out) {
        const bool letter = std::isalpha(static_cast<unsigned char>(c));
        if (letter) c = static_cast<char>(start ? std::toupper(c) : std::tolower(c));
        start = capitalize_only ? false : !letter;
    }
    return out;
}

}  // namespace

Array iterate(const Value& value, const Limits& limits) {
    if (value.is_undefined()) return {};
    if (value.is_array()) return value.as_array();
    if (value.is_object()) {
        Array keys;
        for (const auto& entry : value.as_object().entries()) keys.emplace_back(entry.first);
        return keys;
    }
    if (value.is_string()) {
        // Code points counted from lead bytes, before anything is decoded.
        check_list_items(
            limits, static_cast<size_t>(std::count_if(
                        value.as_string().begin(), value.as_string().end(),
                        [](char c) { return (static_cast<unsigned char>(c) & 0xc0) != 0x80; })));
        Array characters;
        const auto points = unicode::decode_utf8(value.as_string());
        for (size_t i = 0; i < points.size(); ++i)
            characters.emplace_back(unicode::encode_utf8(points, i, i + 1));
        return characters;
    }
    throw RenderError("'" + value.type_name() + "' object is not iterable");
}

Value apply_filter(const std::string& name, const Value& input, const CallArguments& args,
                   const Limits& limits) {
    if (name == "default" || name == "d") {
        const bool boolean = args.get(1, "boolean").truthy();
        return (input.is_undefined() || (boolean && !input.truthy())) ? args.get(0, "default_value")
                                                                      : input;
    }
    if (name == "trim")
        return Value(strip(text_of(input, limits),
                           args.get(0, "chars").is_string() ? args.get(0, "chars").as_string() : "",
                           true, true));
    if (name == "tojson") return tojson(input, args, limits);
    if (name == "length" || name == "count") {
        if (input.is_string())
            return Value(static_cast<int64_t>(unicode::decode_utf8(input.as_string()).size()));
        if (input.is_array()) return Value(static_cast<int64_t>(input.as_array().size()));
        if (input.is_object()) return Value(static_cast<int64_t>(input.as_object().size()));
        return Value(static_cast<int64_t>(iterate(input, limits).size()));
    }
    if (name == "items") {
        if (!input.is_object()) return Value(Array{});
        Array out;
        for (const auto& [key, value] : input.as_object().entries())
            out.emplace_back(Array{Value(key), value});
        return Value(std::move(out));
    }
    if (name == "string") return Value(input.str(limits));
    if (name == "list") return Value(iterate(input, limits));
    if (name == "join") return join(input, args, limits);
    if (name == "select" || name == "reject")
        return select(input, args, name == "select", false, limits);
    if (name == "selectattr" || name == "rejectattr")
        return select(input, args, name == "selectattr", true, limits);
    if (name == "map") return map(input, args, limits);
    if (name == "first" || name == "last") {
        const Array items = iterate(input, limits);
        if (items.empty()) return Value(Undefined{"No first item, sequence was empty."});
        return name == "first" ? items.front() : items.back();
    }
    if (name == "upper" || name == "lower")
        return get_attribute(Value(text_of(input, limits)), name, limits).as_function()({});
    if (name == "capitalize")
        return Value(change_case(get_attribute(Value(text_of(input, limits)), "lower", limits)
                                     .as_function()({})
                                     .as_string(),
                                 true));
    if (name == "title") return Value(change_case(text_of(input, limits), false));
    if (name == "replace")
        return get_attribute(Value(text_of(input, limits)), "replace", limits).as_function()(args);
    if (name == "safe") return input;
    if (name == "int") {
        if (input.is_number()) return Value(input.as_int());
        try {
            return Value(static_cast<int64_t>(std::stoll(text_of(input, limits))));
        } catch (const std::exception&) {
            return args.get(0, "default").is_undefined() ? Value(0) : args.get(0, "default");
        }
    }
    if (name == "float") return float_of(input, args, limits);
    if (name == "abs") {
        if (input.is_float()) return Value(std::fabs(input.as_float()));
        if (input.as_int() == INT64_MIN) throw RenderError("integer overflow in abs()");
        return Value(static_cast<int64_t>(std::llabs(input.as_int())));
    }
    throw UnsupportedTemplate("the template uses the filter '" + name +
                              "', which Hearth's template engine does not support");
}

bool apply_test(const std::string& name, const Value& value, const CallArguments& args,
                const Limits& limits) {
    const Value& other = args.get(0, "value");
    if (name == "defined") return !value.is_undefined();
    if (name == "undefined") return value.is_undefined();
    if (name == "none") return value.is_none();
    if (name == "string") return value.is_string();
    if (name == "mapping") return value.is_object();
    if (name == "iterable") return value.is_array() || value.is_object() || value.is_string();
    if (name == "sequence") return value.is_array() || value.is_object() || value.is_string();
    if (name == "number") return value.is_int() || value.is_float();
    if (name == "integer") return value.is_int();
    if (name == "float") return value.is_float();
    if (name == "boolean") return value.is_bool();
    if (name == "true") return value.is_bool() && value.as_bool();
    if (name == "false") return value.is_bool() && !value.as_bool();
    if (name == "callable") return value.is_callable();
    if (name == "equalto" || name == "eq" || name == "==" || name == "sameas")
        return equal(value, other, limits);
    if (name == "ne" || name == "!=") return !equal(value, other, limits);
    if (name == "odd" || name == "even")
        return value.is_int() && (value.as_int() % 2 != 0) == (name == "odd");
    if (name == "divisibleby") return other.as_int() != 0 && value.as_int() % other.as_int() == 0;
    if (name == "in") {
        for (const auto& item : iterate(other, limits)) {
            if (equal(item, value, limits)) return true;
        }
        return other.is_string() && value.is_string() &&
               other.as_string().find(value.as_string()) != std::string::npos;
    }
    if (name == "lt" || name == "gt" || name == "le" || name == "ge") {
        if (!value.is_number() || !other.is_number()) throw RenderError("comparison needs numbers");
        const double a = value.as_float(), b = other.as_float();
        return name == "lt" ? a < b : name == "gt" ? a > b : name == "le" ? a <= b : a >= b;
    }
    throw UnsupportedTemplate("the template uses the test '" + name +
                              "', which Hearth's template engine does not support");
}

}  // namespace hearth::jinja
