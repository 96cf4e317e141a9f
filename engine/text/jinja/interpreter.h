// Renders parsed templates: scopes, loops, operators, and calls into filters and globals.
#pragma once

#include <string>
#include <unordered_map>
#include <vector>

#include "engine/text/jinja/ast.h"

namespace hearth::jinja {

class Interpreter final {
public:
    // `variables` are the template's inputs; globals are functions such as raise_exception.
    Interpreter(Object variables, Object globals);

    std::string render(const Body& body);

private:
    enum class Flow { Normal, Break, Continue };

    Flow execute(const Body& body, std::string& out);
    Flow execute_for(const Statement& statement, std::string& out);
    void execute_set(const Statement& statement);

    Value evaluate(const Expression& expression);
    Value evaluate_binary(const Expression& expression);
    Value evaluate_call(const Expression& expression);
    CallArguments evaluate_arguments(const Expression& expression, size_t first);

    Value lookup(const std::string& name) const;
    void assign(const std::string& name, Value value);

    std::vector<std::unordered_map<std::string, Value>> m_scopes;  // innermost last
    Object m_globals;
};

}  // namespace hearth::jinja
