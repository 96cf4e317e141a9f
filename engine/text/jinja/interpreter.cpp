#include "engine/text/jinja/interpreter.h"

#include "engine/text/jinja/access.h"
#include "engine/text/jinja/filters.h"
#include "engine/text/jinja/operators.h"
#include "engine/text/jinja/parser.h"

namespace hearth::jinja {
namespace {

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

Interpreter::Nesting::Nesting(Interpreter& interpreter) : m_interpreter(interpreter) {
    check_nesting_depth(m_interpreter.m_limits, ++m_interpreter.m_depth);
}

Interpreter::Nesting::~Nesting() {
    --m_interpreter.m_depth;
}

Interpreter::Interpreter(Object variables, Object globals, const Limits& limits)
    : m_globals(std::move(globals)), m_limits(limits) {
    push_scope();
    for (const auto& [name, value] : variables.entries()) (*m_scopes.back())[name] = value;
}

std::string Interpreter::render(const Body& body) {
    std::string out;
    execute(body, out);
    return out;
}

void Interpreter::write(std::string& out, std::string_view text) const {
    check_output_bytes(m_limits, out.size() + text.size());
    out += text;
}

Interpreter::Flow Interpreter::execute(const Body& body, std::string& out) {
    const Nesting nesting(*this);
    for (const auto& statement : body) {
        const Flow flow = execute_statement(*statement, out);
        if (flow != Flow::Normal) return flow;
    }
    return Flow::Normal;
}

Interpreter::Flow Interpreter::execute_statement(const Statement& statement, std::string& out) {
    switch (statement.kind) {
        case Statement::Kind::Text:
            write(out, statement.text);
            break;
        case Statement::Kind::Output:
            write(out, evaluate(*statement.expressions[0]).str(m_limits));
            break;
        case Statement::Kind::If: {
            size_t branch = 0;
            while (branch < statement.expressions.size() &&
                   !evaluate(*statement.expressions[branch]).truthy())
                ++branch;
            if (branch < statement.bodies.size()) return execute(statement.bodies[branch], out);
            break;
        }
        case Statement::Kind::For:
            execute_for(statement, out);
            break;
        case Statement::Kind::Set:
            execute_set(statement);
            break;
        case Statement::Kind::Macro:
            define_macro(statement);
            break;
        case Statement::Kind::CallBlock:
            execute_call_block(statement, out);
            break;
        case Statement::Kind::Break:
            return Flow::Break;
        case Statement::Kind::Continue:
            return Flow::Continue;
    }
    return Flow::Normal;
}

// Each iteration gets its own scope: a {% set %} inside the body does not leak out.
Interpreter::Flow Interpreter::execute_for(const Statement& statement, std::string& out) {
    const Value iterable = evaluate(*statement.expressions[0]);
    if (iterable.is_none()) throw RenderError("'NoneType' object is not iterable");
    Array items;
    for (auto& item : iterate(iterable, m_limits)) {
        if (statement.has_filter) {
            check_loop_iterations(m_limits, ++m_iterations);
            push_scope();
            (*m_scopes.back())[statement.targets[0]] = item;
            const bool keep = evaluate(*statement.expressions[1]).truthy();
            m_scopes.pop_back();
            if (!keep) continue;
        }
        items.push_back(std::move(item));
    }
    for (size_t index = 0; index < items.size(); ++index) {
        check_loop_iterations(m_limits, ++m_iterations);
        push_scope();
        auto& scope = *m_scopes.back();
        if (statement.targets.size() == 1) {
            scope[statement.targets[0]] = items[index];
        } else {
            const Array parts = iterate(items[index], m_limits);
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
        const auto found = (*scope)->find(name);
        if (found != (*scope)->end()) return found->second;
    }
    if (const Value* global = m_globals.find(name)) return *global;
    return Value(Undefined{"'" + name + "' is undefined"});
}

void Interpreter::assign(const std::string& name, Value value) {
    (*m_scopes.back())[name] = std::move(value);
}

void Interpreter::push_scope() {
    m_scopes.push_back(std::make_shared<Frame>());
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

Value Interpreter::evaluate_call(const Expression& expression, Value caller) {
    const Value callee = evaluate(*expression.operands[0]);
    require_defined(callee);
    if (!callee.is_callable())
        throw RenderError("'" + callee.type_name() + "' object is not callable");
    CallArguments args = evaluate_arguments(expression, 1);
    if (!caller.is_undefined()) args.named.emplace_back("caller", std::move(caller));
    return callee.as_function()(args);
}

Value Interpreter::evaluate(const Expression& expression) {
    const Nesting nesting(*this);
    return evaluate_node(expression);
}

Value Interpreter::evaluate_node(const Expression& e) {
    using Kind = Expression::Kind;
    switch (e.kind) {
        case Kind::Literal:
            return e.literal;
        case Kind::Name:
            return lookup(e.name);
        case Kind::Attribute:
            return get_attribute(evaluate(*e.operands[0]), e.name, m_limits);
        case Kind::Subscript:
            return get_item(evaluate(*e.operands[0]), evaluate(*e.operands[1]), m_limits);
        case Kind::Slice: {
            const Value value = evaluate(*e.operands[0]);
            std::optional<int64_t> parts[3];
            for (int i = 0; i < 3; ++i) {
                if (!e.operands[i + 1]) continue;
                const Value part = evaluate(*e.operands[i + 1]);
                if (part.is_int() || part.is_bool())
                    parts[i] = part.as_int();
                else if (!part.is_none())
                    throw RenderError("slice indices must be integers or None");
            }
            return get_slice(value, parts[0], parts[1], parts[2]);
        }
        case Kind::Call:
            return evaluate_call(e);
        case Kind::Filter:
            return apply_filter(e.name, evaluate(*e.operands[0]), evaluate_arguments(e, 1),
                                m_limits);
        case Kind::Test:
            return Value(apply_test(e.name, evaluate(*e.operands[0]), evaluate_arguments(e, 1),
                                    m_limits) != e.negated);
        case Kind::Unary:
            return unary_operation(e.name, evaluate(*e.operands[0]));
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
    const Value left = evaluate(*e.operands[0]);
    if (e.name == "and") return left.truthy() ? evaluate(*e.operands[1]) : left;
    if (e.name == "or") return left.truthy() ? left : evaluate(*e.operands[1]);
    return binary_operation(e.name, left, evaluate(*e.operands[1]), m_limits);
}

}  // namespace hearth::jinja
