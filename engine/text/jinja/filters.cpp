#include "engine/text/jinja/filters.h"

#include <cmath>

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

std::string text_of(const Value& value, const char* filter) {
    if (value.is_undefined())
        throw RenderError(value.undefined_hint().empty() ? "value is undefined"
                                                         : value.undefined_hint());
    if (!value.is_string()) return value.str();
    (void)filter;
    return value.as_string();
}

Value tojson(const Value& input, const CallArguments& args) {
    JsonStyle style;
    if (const Value& indent = args.get(0, "indent"); indent.is_int())
        style.indent = static_cast<int>(indent.as_int());
    if (const Value& separators = args.get(CallArguments::kKeywordOnly, "separators");
        separators.is_array() && separators.as_array().size() == 2) {
        style.item_separator = separators.as_array()[0].as_string();
        style.key_separator = separators.as_array()[1].as_string();
    }
    style.sort_keys = args.get(CallArguments::kKeywordOnly, "sort_keys").truthy();
    return Value(dump_json(input, style));
}

Value select(const Value& input, const CallArguments& args, bool keep_matching, bool by_attribute) {
    Array out;
    const size_t skip = by_attribute ? 2 : 1;
    const Value& test = args.get(skip - 1, "");
    for (const auto& item : iterate(input)) {
        const Value subject =
            by_attribute ? get_attribute(item, args.get(0, "").as_string()) : item;
        const bool passed = test.is_string()
                                ? apply_test(test.as_string(), subject, rest_of(args, skip))
                                : subject.truthy();
        if (passed == keep_matching) out.push_back(item);
    }
    return Value(std::move(out));
}

Value map(const Value& input, const CallArguments& args) {
    Array out;
    const Value& attribute = args.get(CallArguments::kKeywordOnly, "attribute");
    for (const auto& item : iterate(input)) {
        if (attribute.is_string()) {
            Value found = get_attribute(item, attribute.as_string());
            if (found.is_undefined()) found = args.get(CallArguments::kKeywordOnly, "default");
            out.push_back(found);
        } else {
            out.push_back(apply_filter(args.get(0, "").as_string(), item, rest_of(args, 1)));
        }
    }
    return Value(std::move(out));
}

Value join(const Value& input, const CallArguments& args) {
    const Value& separator = args.get(0, "d");
    const Value& attribute = args.get(1, "attribute");
    std::string out;
    bool first = true;
    for (const auto& item : iterate(input)) {
        if (!first && separator.is_string()) out += separator.as_string();
        first = false;
        out += (attribute.is_string() ? get_attribute(item, attribute.as_string()) : item).str();
    }
    return Value(out);
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

Array iterate(const Value& value) {
    if (value.is_undefined()) return {};
    if (value.is_array()) return value.as_array();
    if (value.is_object()) {
        Array keys;
        for (const auto& entry : value.as_object().entries()) keys.emplace_back(entry.first);
        return keys;
    }
    if (value.is_string()) {
        Array characters;
        const auto points = unicode::decode_utf8(value.as_string());
        for (size_t i = 0; i < points.size(); ++i)
            characters.emplace_back(unicode::encode_utf8(points, i, i + 1));
        return characters;
    }
    throw RenderError("'" + value.type_name() + "' object is not iterable");
}

Value apply_filter(const std::string& name, const Value& input, const CallArguments& args) {
    if (name == "default" || name == "d") {
        const bool boolean = args.get(1, "boolean").truthy();
        return (input.is_undefined() || (boolean && !input.truthy())) ? args.get(0, "default_value")
                                                                      : input;
    }
    if (name == "trim")
        return Value(strip(text_of(input, "trim"),
                           args.get(0, "chars").is_string() ? args.get(0, "chars").as_string() : "",
                           true, true));
    if (name == "tojson") return tojson(input, args);
    if (name == "length" || name == "count") {
        if (input.is_string())
            return Value(static_cast<int64_t>(unicode::decode_utf8(input.as_string()).size()));
        return Value(static_cast<int64_t>(iterate(input).size()));
    }
    if (name == "items") {
        if (!input.is_object()) return Value(Array{});
        Array out;
        for (const auto& [key, value] : input.as_object().entries())
            out.emplace_back(Array{Value(key), value});
        return Value(std::move(out));
    }
    if (name == "string") return Value(input.str());
    if (name == "list") return Value(iterate(input));
    if (name == "join") return join(input, args);
    if (name == "select" || name == "reject") return select(input, args, name == "select", false);
    if (name == "selectattr" || name == "rejectattr")
        return select(input, args, name == "selectattr", true);
    if (name == "map") return map(input, args);
    if (name == "first" || name == "last") {
        const Array items = iterate(input);
        if (items.empty()) return Value(Undefined{"No first item, sequence was empty."});
        return name == "first" ? items.front() : items.back();
    }
    if (name == "upper" || name == "lower")
        return get_attribute(Value(text_of(input, "upper")), name).as_function()({});
    if (name == "capitalize")
        return Value(change_case(get_attribute(Value(text_of(input, "capitalize")), "lower")
                                     .as_function()({})
                                     .as_string(),
                                 true));
    if (name == "title") return Value(change_case(text_of(input, "title"), false));
    if (name == "replace")
        return get_attribute(Value(text_of(input, "replace")), "replace").as_function()(args);
    if (name == "safe") return input;
    if (name == "int") {
        if (input.is_number()) return Value(input.as_int());
        try {
            return Value(static_cast<int64_t>(std::stoll(text_of(input, "int"))));
        } catch (const std::exception&) {
            return args.get(0, "default").is_undefined() ? Value(0) : args.get(0, "default");
        }
    }
    if (name == "float")
        return Value(input.is_number() ? input.as_float() : std::stod(text_of(input, "float")));
    if (name == "abs")
        return input.is_float() ? Value(std::fabs(input.as_float()))
                                : Value(static_cast<int64_t>(std::llabs(input.as_int())));
    throw UnsupportedTemplate("the template uses the filter '" + name +
                              "', which Hearth's template engine does not support");
}

bool apply_test(const std::string& name, const Value& value, const CallArguments& args) {
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
        return equal(value, other);
    if (name == "ne" || name == "!=") return !equal(value, other);
    if (name == "odd" || name == "even")
        return value.is_int() && (value.as_int() % 2 != 0) == (name == "odd");
    if (name == "divisibleby") return other.as_int() != 0 && value.as_int() % other.as_int() == 0;
    if (name == "in") {
        for (const auto& item : iterate(other)) {
            if (equal(item, value)) return true;
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
