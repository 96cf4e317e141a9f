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
            else if constexpr (std::is_same_v<T, std::string>)
                return !v.empty();
            else if constexpr (std::is_same_v<T, std::shared_ptr<const Array>>)
                return !v->empty();
            else if constexpr (std::is_same_v<T, std::shared_ptr<const Object>>)
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

}  // namespace

std::string Value::str() const {
    if (is_undefined()) return "";
    if (is_string()) return as_string();
    return repr();
}

std::string Value::repr() const {
    return std::visit(
        [this](const auto& v) -> std::string {
            using T = std::decay_t<decltype(v)>;
            if constexpr (std::is_same_v<T, Undefined>)
                return "";
            else if constexpr (std::is_same_v<T, None>)
                return "None";
            else if constexpr (std::is_same_v<T, bool>)
                return v ? "True" : "False";
            else if constexpr (std::is_same_v<T, int64_t>)
                return std::to_string(v);
            else if constexpr (std::is_same_v<T, double>)
                return format_float(v);
            else if constexpr (std::is_same_v<T, std::string>)
                return python_quote(v);
            else if constexpr (std::is_same_v<T, std::shared_ptr<const Array>>) {
                std::string out = "[";
                for (size_t i = 0; i < v->size(); ++i) out += (i ? ", " : "") + (*v)[i].repr();
                return out + "]";
            } else if constexpr (std::is_same_v<T, std::shared_ptr<const Object>>) {
                std::string out = "{";
                bool first = true;
                for (const auto& [key, value] : v->entries()) {
                    out += (first ? "" : ", ") + python_quote(key) + ": " + value.repr();
                    first = false;
                }
                return out + "}";
            } else if constexpr (std::is_same_v<T, std::shared_ptr<Namespace>>) {
                return "<Namespace " + Value(Object(v->attributes)).repr() + ">";
            } else {
                (void)this;
                return "<function>";
            }
        },
        m_storage);
}

std::string Value::type_name() const {
    static const char* const names[] = {"undefined", "NoneType", "bool", "int",       "float",
                                        "str",       "list",     "dict", "Namespace", "function"};
    return names[m_storage.index()];
}

bool equal(const Value& a, const Value& b) {
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
            if (!equal(x[i], y[i])) return false;
        }
        return true;
    }
    if (a.is_object()) {
        const auto &x = a.as_object(), &y = b.as_object();
        if (x.size() != y.size()) return false;
        for (const auto& [key, value] : x.entries()) {
            const Value* other = y.find(key);
            if (other == nullptr || !equal(value, *other)) return false;
        }
        return true;
    }
    if (a.is_namespace()) return &a.as_namespace() == &b.as_namespace();
    return false;
}

bool is_python_space(char32_t c) {
    return (c >= 0x09 && c <= 0x0d) || (c >= 0x1c && c <= 0x20) || c == 0x85 || c == 0xa0 ||
           c == 0x1680 || (c >= 0x2000 && c <= 0x200a) || c == 0x2028 || c == 0x2029 ||
           c == 0x202f || c == 0x205f || c == 0x3000;
}

}  // namespace hearth::jinja
