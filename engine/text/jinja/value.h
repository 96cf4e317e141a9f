// Values of the template language: Python's None, bool, int, float, str, list and dict (keys
// kept in insertion order), plus Jinja's undefined, namespace() objects and callables.
// Strings and containers are shared and immutable once built, so copies are cheap: a list of
// a thousand copies of a long string holds it once.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "engine/text/jinja/errors.h"
#include "engine/text/jinja/limits.h"

namespace hearth::jinja {

class Value;
using Array = std::vector<Value>;

class Object {
public:
    const Value* find(const std::string& key) const;
    void set(const std::string& key, Value value);
    const std::vector<std::pair<std::string, Value>>& entries() const { return m_entries; }
    // Defined where Value is complete: clang instantiates the pair here, before it is.
    size_t size() const;
    // Moves every value out into `into`, leaving the object empty (see ~Value).
    void take_values(std::vector<Value>& into);

private:
    std::vector<std::pair<std::string, Value>> m_entries;
};

struct CallArguments {
    std::vector<Value> positional;
    std::vector<std::pair<std::string, Value>> named;

    // Python's binding: the `index`-th positional argument, else the keyword `name`, else an
    // undefined value. Keyword-only parameters pass kKeywordOnly as the index.
    const Value& get(size_t index, const char* name) const;
    static constexpr size_t kKeywordOnly = static_cast<size_t>(-1);
};

using Function = std::function<Value(const CallArguments&)>;

struct Undefined {
    std::string hint;  // why it is undefined, for the error raised when it is used
};
struct None {};
// namespace(): the one mutable object, so loops can carry state out of their scope.
struct Namespace {
    Object attributes;
};

class Value {
public:
    using Storage =
        std::variant<Undefined, None, bool, int64_t, double, std::shared_ptr<const std::string>,
                     std::shared_ptr<Array>, std::shared_ptr<Object>, std::shared_ptr<Namespace>,
                     std::shared_ptr<const Function>>;

    Value() : m_storage(Undefined{}) {}
    Value(Undefined undefined) : m_storage(std::move(undefined)) {}
    Value(None) : m_storage(None{}) {}
    Value(bool value) : m_storage(value) {}
    Value(int value) : m_storage(static_cast<int64_t>(value)) {}
    Value(int64_t value) : m_storage(value) {}
    Value(double value) : m_storage(value) {}
    Value(std::string value) : m_storage(std::make_shared<const std::string>(std::move(value))) {}
    Value(const char* value) : m_storage(std::make_shared<const std::string>(value)) {}
    Value(Array values) : m_storage(std::make_shared<Array>(std::move(values))) {}
    Value(Object object) : m_storage(std::make_shared<Object>(std::move(object))) {}
    Value(const Value&) = default;
    Value(Value&&) noexcept = default;
    Value& operator=(const Value&) = default;
    Value& operator=(Value&&) noexcept = default;
    // A template can nest lists, dicts and namespaces a million deep within its loop limit
    // ({% set ns.x = [ns.x] %}); freeing such a value one level inside the other would overflow
    // the stack, so the levels this value alone owns are taken apart one at a time instead.
    ~Value();
    Value(std::shared_ptr<Namespace> space) : m_storage(std::move(space)) {}
    Value(Function function) : m_storage(std::make_shared<const Function>(std::move(function))) {}

    bool is_undefined() const { return std::holds_alternative<Undefined>(m_storage); }
    bool is_none() const { return std::holds_alternative<None>(m_storage); }
    bool is_bool() const { return std::holds_alternative<bool>(m_storage); }
    bool is_int() const { return std::holds_alternative<int64_t>(m_storage); }
    bool is_float() const { return std::holds_alternative<double>(m_storage); }
    bool is_number() const { return is_int() || is_float() || is_bool(); }
    bool is_string() const {
        return std::holds_alternative<std::shared_ptr<const std::string>>(m_storage);
    }
    bool is_array() const { return std::holds_alternative<std::shared_ptr<Array>>(m_storage); }
    bool is_object() const { return std::holds_alternative<std::shared_ptr<Object>>(m_storage); }
    bool is_namespace() const {
        return std::holds_alternative<std::shared_ptr<Namespace>>(m_storage);
    }
    bool is_callable() const {
        return std::holds_alternative<std::shared_ptr<const Function>>(m_storage);
    }

    bool as_bool() const { return std::get<bool>(m_storage); }
    int64_t as_int() const;   // ints and bools
    double as_float() const;  // any number
    const std::string& as_string() const {
        return *std::get<std::shared_ptr<const std::string>>(m_storage);
    }
    // Lists and dicts never change once built (the storage is mutable only so that ~Value can
    // take apart what it alone owns).
    const Array& as_array() const { return *std::get<std::shared_ptr<Array>>(m_storage); }
    const Object& as_object() const { return *std::get<std::shared_ptr<Object>>(m_storage); }
    Namespace& as_namespace() const { return *std::get<std::shared_ptr<Namespace>>(m_storage); }
    const Function& as_function() const {
        return *std::get<std::shared_ptr<const Function>>(m_storage);
    }
    const std::string& undefined_hint() const { return std::get<Undefined>(m_storage).hint; }

    bool truthy() const;
    // Python's str(): what {{ value }} prints (undefined prints nothing). Throws LimitExceeded
    // when the text would pass limits.max_string_bytes or the value nests deeper than
    // limits.max_nesting_depth (a namespace holding itself).
    std::string str(const Limits& limits = {}) const;
    // Python's repr(), used inside containers; bounded like str().
    std::string repr(const Limits& limits = {}) const;
    // Python's name of the type, for error messages ("str", "dict", …).
    std::string type_name() const;

    const Storage& storage() const { return m_storage; }

private:
    Storage m_storage;
};

// Python's ==, deep for lists and dicts; throws LimitExceeded past limits.max_nesting_depth.
bool equal(const Value& a, const Value& b, const Limits& limits = {});
// Python's float repr: shortest round-trip digits, always with a '.' or an exponent.
std::string format_float(double value);
// Python's str.isspace() for one code point.
bool is_python_space(char32_t c);

}  // namespace hearth::jinja
