// A GGUF metadata value: a scalar, a string, or an array of values (arrays may nest).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "engine/format/string_table.h"

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
// Bytes one value of a scalar type takes in a GGUF file (a bool takes one); 0 for strings and
// arrays, whose sizes vary.
size_t gguf_scalar_size(GgufValueType type);

class GgufValue;

// An array of one element type, stored compactly: a vocabulary's 262,144 scores cost their
// 4 bytes each and its tokens their characters plus 8 bytes each, where one GgufValue per
// element cost about 40 bytes each (tens of megabytes of a small model's memory). Scalars are
// kept as GGUF encodes them, side by side; strings in a StringTable; only nested arrays as
// arrays of their own.
class GgufArray {
public:
    explicit GgufArray(GgufValueType element_type = GgufValueType::UInt8);
    // For arrays written in code; each item must have `element_type`.
    GgufArray(GgufValueType element_type, const std::vector<GgufValue>& items);

    GgufValueType element_type() const { return m_element_type; }
    size_t size() const;
    bool empty() const { return size() == 0; }

    // Element `index`; std::out_of_range past the end. The conversions succeed for the types
    // and ranges GgufValue::as_integer and as_number accept, and give nullopt otherwise.
    std::optional<int64_t> integer_at(size_t index) const;
    std::optional<double> number_at(size_t index) const;
    // These throw std::invalid_argument unless the elements are strings (arrays). A view lasts
    // until the array changes.
    std::string_view string_at(size_t index) const;
    const StringTable& strings() const;
    const GgufArray& array_at(size_t index) const;
    // Any element as a value of its own (a copy).
    GgufValue value_at(size_t index) const;

    // Both throw std::invalid_argument when the value is not of element_type(); set throws
    // std::out_of_range past the end.
    void push_back(const GgufValue& value);
    void set(size_t index, const GgufValue& value);
    // A string array's or an array of arrays' next element, without a GgufValue around it.
    void push_back(std::string_view text);
    void push_back(GgufArray array);
    // Room for `count` elements and, in a string array, `characters` bytes of text.
    void reserve(size_t count, size_t characters = 0);

private:
    void require(GgufValueType type) const;
    void check_index(size_t index) const;
    template <typename T>
    T scalar_at(size_t index) const;
    void put_scalar(const GgufValue& value, size_t index);

    GgufValueType m_element_type;
    std::vector<std::byte> m_bytes;  // scalars: their encodings
    StringTable m_strings;
    std::vector<GgufArray> m_arrays;  // nested arrays
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
