#include "engine/text/jinja/value.h"

#include <charconv>
#include <cmath>

#include "engine/text/unicode.h"

namespace hearth::jinja {

const Value* Object::find(const std::string& key) const {
    for (const auto& entry : m_entries) {
        if (entry.first == key) return &entry.second;
    }
    return nullptr;
}

void Object::set(const std::string& key, Value value) {
    for (auto& entry : m_entries) {
        if (entry.first == key) {
            entry.second = std::move(value);
            return;
        }
    }
    m_entries.emplace_back(key, std::move(value));
}

size_t Object::size() const {
    return m_entries.size();
}

void Object::take_values(std::vector<Value>& into) {
    for (auto& entry : m_entries) into.push_back(std::move(entry.second));
    m_entries.clear();
}

namespace {

// Moves the items of the list, dict or namespace that `storage` alone holds into `into`,
// leaving it empty; anything shared stays as it is, since another value still uses it.
void take_owned_items(Value::Storage& storage, std::vector<Value>& into) {
    if (auto* array = std::get_if<std::shared_ptr<Array>>(&storage)) {
        if (*array && array->use_count() == 1) {
            for (auto& item : **array) into.push_back(std::move(item));
            (*array)->clear();
        }
    } else if (auto* object = std::get_if<std::shared_ptr<Object>>(&storage)) {
        if (*object && object->use_count() == 1) (*object)->take_values(into);
    } else if (auto* space = std::get_if<std::shared_ptr<Namespace>>(&storage)) {
        if (*space && space->use_count() == 1) (*space)->attributes.take_values(into);
    }
}

}  // namespace

Value::~Value() {
    std::vector<Value> pending;
    take_owned_items(m_storage, pending);
    while (!pending.empty()) {
        Value last = std::move(pending.back());
        pending.pop_back();
        take_owned_items(last.m_storage, pending);
    }  // each `last` goes with nothing left inside it
}

const Value& CallArguments::get(size_t index, const char* name) const {
    static const Value missing;
    if (index < positional.size()) return positional[index];
    for (const auto& [key, value] : named) {
        if (key == name) return value;
    }
    return missing;
}

int64_t Value::as_int() const {
    if (is_bool()) return as_bool() ? 1 : 0;
    if (is_float()) return static_cast<int64_t>(std::get<double>(m_storage));
    return std::get<int64_t>(m_storage);
}

double Value::as_float() const {
    if (is_float()) return std::get<double>(m_storage);
    return static_cast<double>(as_int());
}

bool Value::truthy() const {
    return std::visit(
        [](const auto& v) -> bool {
            using T = std::decay_t<decltype(v)>;
            if constexpr (std::is_same_v<T, Undefined> || std::is_same_v<T, None>)
                return false;
            else if constexpr (std::is_same_v<T, bool>)
                return v;
            else if constexpr (std::is_same_v<T, int64_t> || std::is_same_v<T, double>)
                return v != 0;
            else if constexpr (std::is_same_v<T, std::shared_ptr<const std::string>>)
                return !v->empty();
            else if constexpr (std::is_same_v<T, std::shared_ptr<Array>>)
                return !v->empty();
            else if constexpr (std::is_same_v<T, std::shared_ptr<Object>>)
                return v->size() != 0;
            else
                return true;
        },
        m_storage);
}

std::string format_float(double value) {
    if (std::isnan(value)) return "nan";
    if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
    char buffer[64];
    const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
    std::string text(buffer, result.ptr);
    if (text.find_first_of(".e") == std::string::npos) text += ".0";
    return text;
}

namespace {

std::string python_quote(const std::string& text) {
    const bool use_double =
        text.find('\'') != std::string::npos && text.find('"') == std::string::npos;
    const char quote = use_double ? '"' : '\'';
    std::string out(1, quote);
    for (const char c : text) {
        switch (c) {
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
            default:
                if (c == quote) {
                    out += '\\';
                    out += c;
                } else if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
                    static const char* digits = "0123456789abcdef";
                    out += "\\x";
                    out += digits[(c >> 4) & 15];
                    out += digits[c & 15];
                } else {
                    out += c;
                }
        }
    }
    return out + quote;
}

// Writes repr(value) into `out`, checking the depth before descending and the length after
// each piece, so a huge or self-holding value fails before its text takes much memory.
void write_repr(const Value& value, const Limits& limits, size_t depth, std::string& out) {
    check_nesting_depth(limits, depth);
    if (value.is_string()) {
        check_string_bytes(limits, out.size() + value.as_string().size());
        out += python_quote(value.as_string());
    } else if (value.is_array()) {
        out += '[';
        bool first = true;
        for (const auto& item : value.as_array()) {
            if (!first) out += ", ";
            first = false;
            write_repr(item, limits, depth + 1, out);
        }
        out += ']';
    } else if (value.is_object() || value.is_namespace()) {
        const Object& object =
            value.is_object() ? value.as_object() : value.as_namespace().attributes;
        out += value.is_object() ? "{" : "<Namespace {";
        bool first = true;
        for (const auto& [key, item] : object.entries()) {
            if (!first) out += ", ";
            first = false;
            out += python_quote(key) + ": ";
            write_repr(item, limits, depth + 1, out);
        }
        out += value.is_object() ? "}" : "}>";
    } else if (value.is_none()) {
        out += "None";
    } else if (value.is_bool()) {
        out += value.as_bool() ? "True" : "False";
    } else if (value.is_int()) {
        out += std::to_string(value.as_int());
    } else if (value.is_float()) {
        out += format_float(value.as_float());
    } else if (value.is_callable()) {
        out += "<function>";
    }
    check_string_bytes(limits, out.size());
}

bool equal_at(const Value& a, const Value& b, const Limits& limits, size_t depth) {
    check_nesting_depth(limits, depth);
    if (a.is_number() && b.is_number()) {
        if (a.is_float() || b.is_float()) return a.as_float() == b.as_float();
        return a.as_int() == b.as_int();
    }
    if (a.storage().index() != b.storage().index()) return false;
    if (a.is_undefined() || a.is_none()) return true;
    if (a.is_string()) return a.as_string() == b.as_string();
    if (a.is_array()) {
        const auto &x = a.as_array(), &y = b.as_array();
        if (x.size() != y.size()) return false;
        for (size_t i = 0; i < x.size(); ++i) {
            if (!equal_at(x[i], y[i], limits, depth + 1)) return false;
        }
        return true;
    }
    if (a.is_object()) {
        const auto &x = a.as_object(), &y = b.as_object();
        if (x.size() != y.size()) return false;
        for (const auto& [key, value] : x.entries()) {
            const Value* other = y.find(key);
            if (other == nullptr || !equal_at(value, *other, limits, depth + 1)) return false;
        }
        return true;
    }
    if (a.is_namespace()) return &a.as_namespace() == &b.as_namespace();
    return false;
}

}  // namespace

std::string Value::str(const Limits& limits) const {
    if (is_undefined()) return "";
    if (is_string()) return as_string();
    return repr(limits);
}

std::string Value::repr(const Limits& limits) const {
    std::string out;
    write_repr(*this, limits, 0, out);
    return out;
}

std::string Value::type_name() const {
    static const char* const names[] = {"undefined", "NoneType", "bool", "int",       "float",
                                        "str",       "list",     "dict", "Namespace", "function"};
    return names[m_storage.index()];
}

bool equal(const Value& a, const Value& b, const Limits& limits) {
    return equal_at(a, b, limits, 0);
}

bool is_python_space(char32_t c) {
    return (c >= 0x09 && c <= 0x0d) || (c >= 0x1c && c <= 0x20) || c == 0x85 || c == 0xa0 ||
           c == 0x1680 || (c >= 0x2000 && c <= 0x200a) || c == 0x2028 || c == 0x2029 ||
           c == 0x202f || c == 0x205f || c == 0x3000;
}

}  // namespace hearth::jinja
