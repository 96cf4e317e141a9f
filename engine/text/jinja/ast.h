// The parsed form of a template: plain node structs the interpreter walks.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "engine/text/jinja/value.h"

namespace hearth::jinja {

struct Expression {
    enum class Kind {
        Literal,      // literal
        Name,         // name
        Attribute,    // operands[0].name
        Subscript,    // operands[0][operands[1]]
        Slice,        // operands[0][operands[1]:operands[2]:operands[3]] (null parts allowed)
        Call,         // operands[0](operands[1..], with argument_names for keyword arguments)
        Filter,       // operands[0] | name(operands[1..])
        Test,         // operands[0] is [not] name(operands[1..])
        Unary,        // name (operator) operands[0]
        Binary,       // operands[0] name (operator) operands[1]
        Conditional,  // operands[0] if operands[1] else operands[2]
        List,
        Dict,  // operands alternate key, value
    };
    Kind kind = Kind::Literal;
    std::string name;
    Value literal;
    bool negated = false;
    std::vector<std::unique_ptr<Expression>> operands;
    std::vector<std::string>
        argument_names;  // per argument of a call, filter or test; "" if positional
};

struct Statement;
using Body = std::vector<std::unique_ptr<Statement>>;

struct Statement {
    enum class Kind { Text, Output, If, For, Set, Break, Continue };
    Kind kind = Kind::Text;
    std::string text;  // Text
    std::vector<std::unique_ptr<Expression>>
        expressions;           // Output/Set: [value]; If: conditions; For: [iterable, filter?]
    std::vector<Body> bodies;  // If: one per condition, then else; For: body, else; Set block: body
    std::vector<std::string> targets;  // For: loop variables; Set: [name] or [namespace, attribute]
    bool has_filter = false;           // For: `for x in y if cond`
    int line = 0;
};

}  // namespace hearth::jinja
