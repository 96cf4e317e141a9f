// Renders parsed templates: scopes, loops, operators, macros, and calls into filters and
// globals, within the work the Limits allow.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "engine/text/jinja/ast.h"
#include "engine/text/jinja/limits.h"

namespace hearth::jinja {

class Interpreter final {
public:
    // `variables` are the template's inputs; globals are functions such as raise_exception.
    // `limits` must outlive the interpreter.
    Interpreter(Object variables, Object globals, const Limits& limits);

    std::string render(const Body& body);

private:
    enum class Flow { Normal, Break, Continue };
    // One scope's variables. Scopes are shared so a macro can keep those it was defined in.
    using Frame = std::unordered_map<std::string, Value>;
    using Scopes = std::vector<std::shared_ptr<Frame>>;
    // A macro's defining scopes; weak, since the macro itself lives in one of them.
    using Closure = std::vector<std::weak_ptr<Frame>>;

    Flow execute(const Body& body, std::string& out);
    Flow execute_statement(const Statement& statement, std::string& out);
    Flow execute_for(const Statement& statement, std::string& out);
    void execute_set(const Statement& statement);
    // Appends to a rendered text, failing before it would pass limits.max_output_bytes.
    void write(std::string& out, std::string_view text) const;

    // macro.cpp: {% macro %}, {% call %} and invoking either.
    void define_macro(const Statement& macro);
    void execute_call_block(const Statement& block, std::string& out);
    Value call_macro(const Statement& macro, const std::string& name, const Closure& closure,
                     const CallArguments& args);
    void bind_arguments(const Statement& macro, const std::string& name, const CallArguments& args);

    Value evaluate(const Expression& expression);
    Value evaluate_node(const Expression& expression);
    Value evaluate_binary(const Expression& expression);
    // A call expression; a defined `caller` is passed as the keyword caller ({% call %}).
    Value evaluate_call(const Expression& expression, Value caller = {});
    CallArguments evaluate_arguments(const Expression& expression, size_t first);

    Value lookup(const std::string& name) const;
    void assign(const std::string& name, Value value);
    void push_scope();

    // Counts one level of rendering recursion (a body, an expression, a call) while it lives.
    class Nesting final {
    public:
        explicit Nesting(Interpreter& interpreter);
        ~Nesting();
        Nesting(const Nesting&) = delete;
        Nesting& operator=(const Nesting&) = delete;

    private:
        Interpreter& m_interpreter;
    };

    Scopes m_scopes;  // innermost last
    Object m_globals;
    const Limits& m_limits;
    uint64_t m_iterations = 0;  // all loops together
    size_t m_depth = 0;         // rendering recursion now
    size_t m_calls = 0;         // macro calls now in progress
};

}  // namespace hearth::jinja
