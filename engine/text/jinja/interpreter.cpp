#include "engine/text/jinja/interpreter.h"

#include <cmath>

#include "engine/text/jinja/access.h"
#include "engine/text/jinja/filters.h"
#include "engine/text/jinja/parser.h"

namespace hearth::jinja {
namespace {

[[noreturn]] void undefined_error(const Value& value) {
    throw RenderError(value.undefined_hint().empty() ? "value is undefined"
                                                     : value.undefined_hint());
}

void require_defined(const Value& value) {
    if (value.is_undefined()) undefined_error(value);
}

Value add(const Value& a, const Value& b) {
    require_defined(a);
    require_defined(b);
    if (a.is_string() && b.is_string()) return Value(a.as_string() + b.as_string());
    if (a.is_array() && b.is_array()) {
        Array joined = a.as_array();
        joined.insert(joined.end(), b.as_array().begin(), b.as_array().end());
        return Value(std::move(joined));
    }
    if (a.is_number() && b.is_number()) {
        if (a.is_float() || b.is_float()) return Value(a.as_float() + b.as_float());
        return Value(a.as_int() + b.as_int());
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
        return floating ? Value(a.as_float() * b.as_float()) : Value(a.as_int() * b.as_int());
    if (op == "-")
        return floating ? Value(a.as_float() - b.as_float()) : Value(a.as_int() - b.as_int());
    if (floating) {
        if (b.as_float() == 0) throw RenderError("division by zero");
        const double quotient = std::floor(a.as_float() / b.as_float());
        return op == "//" ? Value(quotient) : Value(a.as_float() - quotient * b.as_float());
    }
    if (b.as_int() == 0) throw RenderError("integer division or modulo by zero");
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

bool contains(const Value& container, const Value& item) {
    if (container.is_undefined()) return false;
    if (container.is_string()) {
        if (!item.is_string()) throw RenderError("'in <string>' requires string as left operand");
        return container.as_string().find(item.as_string()) != std::string::npos;
    }
    if (container.is_object())
        return item.is_string() && container.as_object().find(item.as_string()) != nullptr;
    for (const auto& element : iterate(container)) {
        if (equal(element, item)) return true;
    }
    return false;
}

Object loop_object(size_t index, const Array& items) {
    Object loop;
    const auto count = static_cast<int64_t>(items.size());
    const auto i = static_cast<int64_t>(index);
    loop.set("index0", Value(i));
    loop.set("index", Value(i + 1));
    loop.set("revindex0", Value(count - i - 1));
    loop.set("revindex", Value(count - i));
    loop.set("first", Value(index == 0));
    loop.set("last", Value(index + 1 == items.size()));
    loop.set("length", Value(count));
    loop.set("previtem",
             index > 0 ? items[index - 1] : Value(Undefined{"there is no previous item"}));
    loop.set("nextitem", index + 1 < items.size() ? items[index + 1]
                                                  : Value(Undefined{"there is no next item"}));
    return loop;
}

}  // namespace

Interpreter::Interpreter(Object variables, Object globals) : m_globals(std::move(globals)) {
    m_scopes.emplace_back();
    for (const auto& [name, value] : variables.entries()) m_scopes.back()[name] = value;
}

std::string Interpreter::render(const Body& body) {
    std::string out;
    execute(body, out);
    return out;
}

Interpreter::Flow Interpreter::execute(const Body& body, std::string& out) {
    for (const auto& statement : body) {
        switch (statement->kind) {
            case Statement::Kind::Text:
                out += statement->text;
                break;
            case Statement::Kind::Output:
                out += evaluate(*statement->expressions[0]).str();
                break;
            case Statement::Kind::If: {
                size_t branch = 0;
                while (branch < statement->expressions.size() &&
                       !evaluate(*statement->expressions[branch]).truthy())
                    ++branch;
                if (branch < statement->bodies.size()) {
                    const Flow flow = execute(statement->bodies[branch], out);
                    if (flow != Flow::Normal) return flow;
                }
                break;
            }
            case Statement::Kind::For:
                execute_for(*statement, out);
                break;
            case Statement::Kind::Set:
                execute_set(*statement);
                break;
            case Statement::Kind::Break:
                return Flow::Break;
            case Statement::Kind::Continue:
                return Flow::Continue;
        }
    }
    return Flow::Normal;
}

// Each iteration gets its own scope: a {% set %} inside the body does not leak out.
Interpreter::Flow Interpreter::execute_for(const Statement& statement, std::string& out) {
    const Value iterable = evaluate(*statement.expressions[0]);
    if (iterable.is_none()) throw RenderError("'NoneType' object is not iterable");
    Array items;
    for (auto& item : iterate(iterable)) {
        if (statement.has_filter) {
            m_scopes.emplace_back();
            m_scopes.back()[statement.targets[0]] = item;
            const bool keep = evaluate(*statement.expressions[1]).truthy();
            m_scopes.pop_back();
            if (!keep) continue;
        }
        items.push_back(std::move(item));
    }
    for (size_t index = 0; index < items.size(); ++index) {
        m_scopes.emplace_back();
        auto& scope = m_scopes.back();
        if (statement.targets.size() == 1) {
            scope[statement.targets[0]] = items[index];
        } else {
            const Array parts = iterate(items[index]);
            if (parts.size() != statement.targets.size())
                throw RenderError("cannot unpack loop item");
            for (size_t t = 0; t < parts.size(); ++t) scope[statement.targets[t]] = parts[t];
        }
        scope["loop"] = Value(loop_object(index, items));
        const Flow flow = execute(statement.bodies[0], out);
        m_scopes.pop_back();
        if (flow == Flow::Break) break;
    }
    if (items.empty() && statement.bodies.size() > 1) return execute(statement.bodies[1], out);
    return Flow::Normal;
}

void Interpreter::execute_set(const Statement& statement) {
    Value value;
    if (statement.expressions.empty()) {
        std::string captured;
        execute(statement.bodies[0], captured);
        value = Value(captured);
    } else {
        value = evaluate(*statement.expressions[0]);
    }
    if (statement.targets.size() == 1) {
        assign(statement.targets[0], std::move(value));
        return;
    }
    const Value space = lookup(statement.targets[0]);
    if (!space.is_namespace()) throw RenderError("cannot assign attribute on non-namespace object");
    space.as_namespace().attributes.set(statement.targets[1], std::move(value));
}

Value Interpreter::lookup(const std::string& name) const {
    for (auto scope = m_scopes.rbegin(); scope != m_scopes.rend(); ++scope) {
        const auto found = scope->find(name);
        if (found != scope->end()) return found->second;
    }
    if (const Value* global = m_globals.find(name)) return *global;
    return Value(Undefined{"'" + name + "' is undefined"});
}

void Interpreter::assign(const std::string& name, Value value) {
    m_scopes.back()[name] = std::move(value);
}

CallArguments Interpreter::evaluate_arguments(const Expression& expression, size_t first) {
    CallArguments args;
    for (size_t i = first; i < expression.operands.size(); ++i) {
        Value value = evaluate(*expression.operands[i]);
        if (expression.argument_names[i].empty())
            args.positional.push_back(std::move(value));
        else
            args.named.emplace_back(expression.argument_names[i], std::move(value));
    }
    return args;
}

Value Interpreter::evaluate_call(const Expression& expression) {
    const Value callee = evaluate(*expression.operands[0]);
    if (callee.is_undefined()) undefined_error(callee);
    if (!callee.is_callable())
        throw RenderError("'" + callee.type_name() + "' object is not callable");
    return callee.as_function()(evaluate_arguments(expression, 1));
}

Value Interpreter::evaluate(const Expression& e) {
    using Kind = Expression::Kind;
    switch (e.kind) {
        case Kind::Literal:
            return e.literal;
        case Kind::Name:
            return lookup(e.name);
        case Kind::Attribute:
            return get_attribute(evaluate(*e.operands[0]), e.name);
        case Kind::Subscript:
            return get_item(evaluate(*e.operands[0]), evaluate(*e.operands[1]));
        case Kind::Slice: {
            const Value value = evaluate(*e.operands[0]);
            std::optional<int64_t> parts[3];
            for (int i = 0; i < 3; ++i) {
                if (e.operands[i + 1]) parts[i] = evaluate(*e.operands[i + 1]).as_int();
            }
            return get_slice(value, parts[0], parts[1], parts[2]);
        }
        case Kind::Call:
            return evaluate_call(e);
        case Kind::Filter:
            return apply_filter(e.name, evaluate(*e.operands[0]), evaluate_arguments(e, 1));
        case Kind::Test:
            return Value(apply_test(e.name, evaluate(*e.operands[0]), evaluate_arguments(e, 1)) !=
                         e.negated);
        case Kind::Unary: {
            const Value operand = evaluate(*e.operands[0]);
            if (e.name == "not") return Value(!operand.truthy());
            require_defined(operand);
            if (!operand.is_number())
                throw RenderError("bad operand type for unary " + e.name + ": '" +
                                  operand.type_name() + "'");
            if (e.name == "+") return operand;
            return operand.is_float() ? Value(-operand.as_float()) : Value(-operand.as_int());
        }
        case Kind::Binary:
            return evaluate_binary(e);
        case Kind::Conditional:
            if (evaluate(*e.operands[1]).truthy()) return evaluate(*e.operands[0]);
            return e.operands[2] ? evaluate(*e.operands[2])
                                 : Value(Undefined{"the condition was false"});
        case Kind::List: {
            Array items;
            for (const auto& operand : e.operands) items.push_back(evaluate(*operand));
            return Value(std::move(items));
        }
        case Kind::Dict: {
            Object object;
            for (size_t i = 0; i + 1 < e.operands.size(); i += 2) {
                const Value key = evaluate(*e.operands[i]);
                if (!key.is_string())
                    throw UnsupportedTemplate(
                        "dict literals with non-string keys are not supported");
                object.set(key.as_string(), evaluate(*e.operands[i + 1]));
            }
            return Value(std::move(object));
        }
    }
    throw RenderError("unknown expression");
}

Value Interpreter::evaluate_binary(const Expression& e) {
    const std::string& op = e.name;
    const Value left = evaluate(*e.operands[0]);
    if (op == "and") return left.truthy() ? evaluate(*e.operands[1]) : left;
    if (op == "or") return left.truthy() ? left : evaluate(*e.operands[1]);
    const Value right = evaluate(*e.operands[1]);
    if (op == "+") return add(left, right);
    if (op == "~") return Value(left.str() + right.str());
    if (op == "==") return Value(equal(left, right));
    if (op == "!=") return Value(!equal(left, right));
    if (op == "<") return Value(less(left, right));
    if (op == ">") return Value(less(right, left));
    if (op == "<=") return Value(!less(right, left));
    if (op == ">=") return Value(!less(left, right));
    if (op == "in") return Value(contains(right, left));
    if (op == "not in") return Value(!contains(right, left));
    if (op == "*" && left.is_string() && right.is_int()) {
        std::string repeated;
        for (int64_t i = 0; i < right.as_int(); ++i) repeated += left.as_string();
        return Value(repeated);
    }
    return arithmetic(op, left, right);
}

}  // namespace hearth::jinja
