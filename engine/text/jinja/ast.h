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
    size_t height = 1;   // levels of nodes from this one down, bounded by the parser
};

struct Statement;
using Body = std::vector<std::unique_ptr<Statement>>;

struct Statement {
    enum class Kind { Text, Output, If, For, Set, Break, Continue, Macro, CallBlock };
    Kind kind = Kind::Text;
    std::string text;  // Text
    // Output/Set: [value]; If: conditions; For: [iterable, filter?]; CallBlock: [the call]
    std::vector<std::unique_ptr<Expression>> expressions;
    // If: one per condition, then else; For: body, else; Set block, Macro, CallBlock: body
    std::vector<Body> bodies;
    // For: loop variables; Set: [name] or [namespace, attribute]; Macro: [name]
    std::vector<std::string> targets;
    bool has_filter = false;  // For: `for x in y if cond`
    // Macro, and CallBlock for the caller() it defines: the parameters, their default values
    // (null where none), and the special names the body reads, which Jinja binds only then.
    std::vector<std::string> parameters;
    std::vector<std::unique_ptr<Expression>> defaults;
    bool reads_varargs = false, reads_kwargs = false, reads_caller = false;
    int line = 0;
};

}  // namespace hearth::jinja
