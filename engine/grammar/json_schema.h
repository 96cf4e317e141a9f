// The JSON Schema subset JSON mode understands, flattened into nodes the grammar walks:
// type (object, array, string, number, integer, boolean, null, or a list of them), properties,
// required, items, enum and const. A schema that uses anything else is refused with its name, so
// nobody believes a constraint holds that does not.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace hearth {

class SchemaError : public std::invalid_argument {
public:
    using std::invalid_argument::invalid_argument;
};

enum JsonType : uint8_t {
    kJsonObject = 1,
    kJsonArray = 2,
    kJsonString = 4,
    kJsonNumber = 8,
    kJsonInteger = 16,  // a number without fraction or exponent
    kJsonBoolean = 32,
    kJsonNull = 64,
    kJsonAny = 127,
};

struct SchemaNode {
    uint8_t types = kJsonAny;
    // Object: the allowed keys (as quoted JSON strings) and their schemas' node indices; empty
    // means any key.
    std::vector<std::pair<std::string, int>> properties;
    uint64_t required = 0;  // bit i: properties[i] must appear
    int items = -1;         // array element schema; -1: any value
    // enum/const: the allowed values, written as compact JSON; empty means unrestricted.
    std::vector<std::string> literals;
};

class JsonSchema final {
public:
    static constexpr size_t kMaxProperties = 64;
    static constexpr size_t kMaxLiterals = 64;

    // Any JSON object: what JSON mode means without a schema.
    static JsonSchema any_object();
    // Throws SchemaError naming the first unsupported or malformed part.
    static JsonSchema parse(std::string_view schema_json);

    const SchemaNode& node(int index) const { return m_nodes[static_cast<size_t>(index)]; }
    int root() const { return 0; }
    // A node that accepts any value: the schema of unconstrained keys and items.
    int any() const { return static_cast<int>(m_nodes.size()) - 1; }
    // The fewest bytes a value of node `index` can take.
    int shortest(int index) const { return m_shortest[static_cast<size_t>(index)]; }

private:
    void compute_shortest();

    std::vector<SchemaNode> m_nodes;
    std::vector<int> m_shortest;

    friend class SchemaReader;
};

}  // namespace hearth
