// What one template may make the interpreter do. A chat template is code taken from a model
// file, so rendering it must end quickly and in little memory whatever it says: every size is
// checked before anything is allocated for it, and each limit, when exceeded, fails the render
// with a LimitExceeded that names the limit. The defaults leave room for real conversations
// (long agent sessions, large tool lists) many times over; callers may tighten them.
#pragma once

#include <cstddef>
#include <cstdint>

#include "engine/text/jinja/errors.h"

namespace hearth::jinja {

struct Limits {
    // Bytes of rendered text: the whole output, and each block rendered into a value on its
    // own ({% set %} blocks, macro bodies). 64 MiB is ~16 million tokens.
    size_t max_output_bytes = size_t{64} << 20;
    // Bytes of one string the template builds: +, ~, *, join, replace, tojson, str() of a
    // list or dict.
    size_t max_string_bytes = size_t{64} << 20;
    // Items of one list the template builds: list + list, list * n, range(), split(), or the
    // characters of a string a loop walks over.
    size_t max_list_items = size_t{1} << 20;
    // Loop iterations in one render, all loops together. gpt-oss looks ahead from every
    // message, so a conversation of n messages costs about n*n/2: 10 million covers 4000.
    uint64_t max_loop_iterations = 10'000'000;
    // Macro and caller() calls in progress at once; macros may recurse (JSON schemas do).
    size_t max_call_depth = 100;
    // How deeply blocks, operators and calls may nest while rendering (and how tall one
    // expression may be), and lists, dicts and namespaces while printed, compared or dumped as
    // JSON. It bounds the stack the way Python's recursion limit does, and stops a namespace
    // that holds itself.
    size_t max_nesting_depth = 1000;
    // How deeply parentheses, brackets, unary operators and blocks may nest in the template's
    // text. The parser recurses through a dozen functions per level, so this is tighter; Jinja's
    // own parser gives up near 100.
    size_t max_source_nesting = 200;
};

// Each throws LimitExceeded when `amount` is over its limit.
void check_output_bytes(const Limits& limits, size_t amount);
void check_string_bytes(const Limits& limits, size_t amount);
void check_list_items(const Limits& limits, size_t amount);
void check_nesting_depth(const Limits& limits, size_t depth);
void check_source_nesting(const Limits& limits, size_t depth);
void check_loop_iterations(const Limits& limits, uint64_t count);
void check_call_depth(const Limits& limits, size_t depth);

// a * b, saturating instead of wrapping, so a size computed from a template's numbers can be
// compared with a limit before anything is allocated.
size_t saturating_multiply(size_t a, size_t b);

}  // namespace hearth::jinja
