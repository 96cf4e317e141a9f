#include "engine/text/jinja/names.h"

namespace hearth::jinja {
namespace {

void collect(const Expression& expression, std::set<std::string>& names) {
    // Only a Name node's `name` is a lookup; the others hold an attribute, filter, test or
    // operator there.
    if (expression.kind == Expression::Kind::Name) names.insert(expression.name);
    for (const auto& operand : expression.operands) {
        if (operand) collect(*operand, names);  // a slice may leave parts out
    }
}

void collect(const Body& body, std::set<std::string>& names) {
    for (const auto& statement : body) {
        for (const auto* expressions : {&statement->expressions, &statement->defaults}) {
            for (const auto& expression : *expressions) {
                if (expression) collect(*expression, names);
            }
        }
        for (const auto& inner : statement->bodies) collect(inner, names);
    }
}

}  // namespace

std::set<std::string> names_read(const Body& body) {
    std::set<std::string> names;
    collect(body, names);
    return names;
}

}  // namespace hearth::jinja
