#include "engine/text/jinja/limits.h"

#include <limits>
#include <string>

namespace hearth::jinja {
namespace {

void check(size_t amount, size_t limit, const char* what, const char* name, const char* unit) {
    if (amount <= limit) return;
    throw LimitExceeded("the template " + std::string(what) + ", over the limit of " +
                        std::to_string(limit) + " " + unit + " (" + name + ")");
}

}  // namespace

void check_output_bytes(const Limits& limits, size_t amount) {
    check(amount, limits.max_output_bytes, "rendered too much text", "max_output_bytes", "bytes");
}

void check_string_bytes(const Limits& limits, size_t amount) {
    check(amount, limits.max_string_bytes, "built too long a string", "max_string_bytes", "bytes");
}

void check_list_items(const Limits& limits, size_t amount) {
    check(amount, limits.max_list_items, "built too long a list", "max_list_items", "items");
}

void check_nesting_depth(const Limits& limits, size_t depth) {
    check(depth, limits.max_nesting_depth, "nests too deeply", "max_nesting_depth", "levels");
}

void check_source_nesting(const Limits& limits, size_t depth) {
    check(depth, limits.max_source_nesting, "text nests too deeply", "max_source_nesting",
          "levels");
}

void check_loop_iterations(const Limits& limits, uint64_t count) {
    if (count <= limits.max_loop_iterations) return;
    throw LimitExceeded("the template ran more loop iterations than the limit of " +
                        std::to_string(limits.max_loop_iterations) + " (max_loop_iterations)");
}

void check_call_depth(const Limits& limits, size_t depth) {
    check(depth, limits.max_call_depth, "nests macro calls too deeply", "max_call_depth", "calls");
}

size_t saturating_multiply(size_t a, size_t b) {
    if (a != 0 && b > std::numeric_limits<size_t>::max() / a)
        return std::numeric_limits<size_t>::max();
    return a * b;
}

}  // namespace hearth::jinja
