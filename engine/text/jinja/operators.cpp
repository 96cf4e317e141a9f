#include "engine/text/jinja/operators.h"

#include <algorithm>
#include <cmath>

#include "engine/text/jinja/filters.h"

namespace hearth::jinja {
namespace {

// Python's int arithmetic is unbounded; an int64 that would wrap fails instead.
[[noreturn]] void overflow() {
    throw RenderError("integer overflow: the result does not fit in 64 bits");
}

int64_t checked_add(int64_t a, int64_t b) {
    int64_t result = 0;
    if (__builtin_add_overflow(a, b, &result)) overflow();
    return result;
}

int64_t checked_subtract(int64_t a, int64_t b) {
    int64_t result = 0;
    if (__builtin_sub_overflow(a, b, &result)) overflow();
    return result;
}

int64_t checked_multiply(int64_t a, int64_t b) {
    int64_t result = 0;
    if (__builtin_mul_overflow(a, b, &result)) overflow();
    return result;
}

Value add(const Value& a, const Value& b, const Limits& limits) {
    require_defined(a);
    require_defined(b);
    if (a.is_string() && b.is_string()) {
        check_string_bytes(limits, a.as_string().size() + b.as_string().size());
        return Value(a.as_string() + b.as_string());
    }
    if (a.is_array() && b.is_array()) {
        check_list_items(limits, a.as_array().size() + b.as_array().size());
        Array joined = a.as_array();
        joined.insert(joined.end(), b.as_array().begin(), b.as_array().end());
        return Value(std::move(joined));
    }
    if (a.is_number() && b.is_number()) {
        if (a.is_float() || b.is_float()) return Value(a.as_float() + b.as_float());
        return Value(checked_add(a.as_int(), b.as_int()));
    }
    throw RenderError("unsupported operand type(s) for +: '" + a.type_name() + "' and '" +
                      b.type_name() + "'");
}

Value arithmetic(const std::string& op, const Value& a, const Value& b) {
    require_defined(a);
    require_defined(b);
    if (!a.is_number() || !b.is_number()) {
        throw RenderError("unsupported operand type(s) for " + op + ": '" + a.type_name() +
                          "' and '" + b.type_name() + "'");
    }
    const bool floating = a.is_float() || b.is_float();
    if (op == "/") {
        if (b.as_float() == 0) throw RenderError("division by zero");
        return Value(a.as_float() / b.as_float());
    }
    if (op == "*")
        return floating ? Value(a.as_float() * b.as_float())
                        : Value(checked_multiply(a.as_int(), b.as_int()));
    if (op == "-")
        return floating ? Value(a.as_float() - b.as_float())
                        : Value(checked_subtract(a.as_int(), b.as_int()));
    if (floating) {
        if (b.as_float() == 0) throw RenderError("division by zero");
        const double quotient = std::floor(a.as_float() / b.as_float());
        return op == "//" ? Value(quotient) : Value(a.as_float() - quotient * b.as_float());
    }
    if (b.as_int() == 0) throw RenderError("integer division or modulo by zero");
    if (b.as_int() == -1) {  // the one quotient that can wrap: INT64_MIN // -1
        return op == "//" ? Value(checked_subtract(0, a.as_int())) : Value(0);
    }
    // Python floors towards negative infinity.
    int64_t quotient = a.as_int() / b.as_int();
    if ((a.as_int() % b.as_int() != 0) && ((a.as_int() < 0) != (b.as_int() < 0))) --quotient;
    return op == "//" ? Value(quotient) : Value(a.as_int() - quotient * b.as_int());
}

bool less(const Value& a, const Value& b) {
    if (a.is_number() && b.is_number()) return a.as_float() < b.as_float();
    if (a.is_string() && b.is_string()) return a.as_string() < b.as_string();
    throw RenderError("'<' not supported between instances of '" + a.type_name() + "' and '" +
                      b.type_name() + "'");
}

// str * n, list * n (either order), sized before anything is built.
Value repeat(const Value& a, const Value& b, const Limits& limits) {
    const Value& sequence = a.is_int() ? b : a;
    const int64_t count = std::max<int64_t>(0, (a.is_int() ? a : b).as_int());
    if (sequence.is_string()) {
        const std::string& text = sequence.as_string();
        check_string_bytes(limits, saturating_multiply(text.size(), static_cast<size_t>(count)));
        std::string repeated;
        repeated.reserve(text.size() * static_cast<size_t>(count));
        for (int64_t i = 0; i < count; ++i) repeated += text;
        return Value(std::move(repeated));
    }
    const Array& items = sequence.as_array();
    check_list_items(limits, saturating_multiply(items.size(), static_cast<size_t>(count)));
    Array repeated;
    repeated.reserve(items.size() * static_cast<size_t>(count));
    for (int64_t i = 0; i < count; ++i) repeated.insert(repeated.end(), items.begin(), items.end());
    return Value(std::move(repeated));
}

bool is_repetition(const Value& a, const Value& b) {
    const auto sequence = [](const Value& v) { return v.is_string() || v.is_array(); };
    return (sequence(a) && b.is_int()) || (a.is_int() && sequence(b));
}

bool contains(const Value& container, const Value& item, const Limits& limits) {
    if (container.is_undefined()) return false;
    if (container.is_string()) {
        if (!item.is_string()) throw RenderError("'in <string>' requires string as left operand");
        return container.as_string().find(item.as_string()) != std::string::npos;
    }
    if (container.is_object())
        return item.is_string() && container.as_object().find(item.as_string()) != nullptr;
    for (const auto& element : iterate(container, limits)) {
        if (equal(element, item, limits)) return true;
    }
    return false;
}

}  // namespace

void require_defined(const Value& value) {
    if (!value.is_undefined()) return;
    throw RenderError(value.undefined_hint().empty() ? "value is undefined"
                                                     : value.undefined_hint());
}

Value unary_operation(const std::string& op, const Value& operand) {
    if (op == "not") return Value(!operand.truthy());
    require_defined(operand);
    if (!operand.is_number())
        throw RenderError("bad operand type for unary " + op + ": '" + operand.type_name() + "'");
    if (op == "+") return operand;
    return operand.is_float() ? Value(-operand.as_float())
                              : Value(checked_subtract(0, operand.as_int()));
}

Value binary_operation(const std::string& op, const Value& left, const Value& right,
                       const Limits& limits) {
    if (op == "+") return add(left, right, limits);
    if (op == "~") {
        const std::string a = left.str(limits), b = right.str(limits);
        check_string_bytes(limits, a.size() + b.size());
        return Value(a + b);
    }
    if (op == "==") return Value(equal(left, right, limits));
    if (op == "!=") return Value(!equal(left, right, limits));
    if (op == "<") return Value(less(left, right));
    if (op == ">") return Value(less(right, left));
    if (op == "<=") return Value(!less(right, left));
    if (op == ">=") return Value(!less(left, right));
    if (op == "in") return Value(contains(right, left, limits));
    if (op == "not in") return Value(!contains(right, left, limits));
    if (op == "*" && is_repetition(left, right)) return repeat(left, right, limits);
    return arithmetic(op, left, right);
}

}  // namespace hearth::jinja
