// A GGUF metadata value: a scalar, a string, or an array of values (arrays may nest).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace hearth {

// Values serialised in GGUF files: do not change or reuse.
enum class GgufValueType : uint32_t {
    UInt8 = 0,
    Int8 = 1,
    UInt16 = 2,
    Int16 = 3,
    UInt32 = 4,
    Int32 = 5,
    Float32 = 6,
    Bool = 7,
    String = 8,
    Array = 9,
    UInt64 = 10,
    Int64 = 11,
    Float64 = 12,
};

std::string_view gguf_value_type_name(GgufValueType type);

class GgufValue;

struct GgufArray {
    GgufValueType element_type = GgufValueType::UInt8;
    std::vector<GgufValue> items;
};

class GgufValue {
public:
    using Storage = std::variant<uint8_t, int8_t, uint16_t, int16_t, uint32_t, int32_t, float, bool,
                                 std::string, GgufArray, uint64_t, int64_t, double>;

    GgufValue() = default;
    template <typename T>
    explicit GgufValue(T value) : m_storage(std::move(value)) {}

    // The variant's alternatives are declared in GgufValueType order.
    GgufValueType type() const { return static_cast<GgufValueType>(m_storage.index()); }
    const Storage& storage() const { return m_storage; }

    // Conversions that succeed only when the value has a fitting type and range.
    std::optional<int64_t> as_integer() const;
    std::optional<double> as_number() const;  // integers and floats
    const std::string* as_string() const { return std::get_if<std::string>(&m_storage); }
    const GgufArray* as_array() const { return std::get_if<GgufArray>(&m_storage); }
    std::optional<bool> as_bool() const;

private:
    Storage m_storage;
};

}  // namespace hearth
