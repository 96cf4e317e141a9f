#include "engine/format/gguf_value.h"

#include <cstring>
#include <limits>
#include <stdexcept>

namespace hearth {

std::string_view gguf_value_type_name(GgufValueType type) {
    switch (type) {
        case GgufValueType::UInt8:
            return "uint8";
        case GgufValueType::Int8:
            return "int8";
        case GgufValueType::UInt16:
            return "uint16";
        case GgufValueType::Int16:
            return "int16";
        case GgufValueType::UInt32:
            return "uint32";
        case GgufValueType::Int32:
            return "int32";
        case GgufValueType::Float32:
            return "float32";
        case GgufValueType::Bool:
            return "bool";
        case GgufValueType::String:
            return "string";
        case GgufValueType::Array:
            return "array";
        case GgufValueType::UInt64:
            return "uint64";
        case GgufValueType::Int64:
            return "int64";
        case GgufValueType::Float64:
            return "float64";
    }
    return "unknown";
}

size_t gguf_scalar_size(GgufValueType type) {
    switch (type) {
        case GgufValueType::UInt8:
        case GgufValueType::Int8:
        case GgufValueType::Bool:
            return 1;
        case GgufValueType::UInt16:
        case GgufValueType::Int16:
            return 2;
        case GgufValueType::UInt32:
        case GgufValueType::Int32:
        case GgufValueType::Float32:
            return 4;
        case GgufValueType::UInt64:
        case GgufValueType::Int64:
        case GgufValueType::Float64:
            return 8;
        case GgufValueType::String:
        case GgufValueType::Array:
            return 0;
    }
    return 0;
}

std::optional<int64_t> GgufValue::as_integer() const {
    return std::visit(
        [](const auto& value) -> std::optional<int64_t> {
            using T = std::decay_t<decltype(value)>;
            if constexpr (std::is_same_v<T, uint64_t>) {
                if (value > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
                    return std::nullopt;
                }
                return static_cast<int64_t>(value);
            } else if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
                return static_cast<int64_t>(value);
            } else {
                return std::nullopt;
            }
        },
        m_storage);
}

std::optional<double> GgufValue::as_number() const {
    if (const auto* f = std::get_if<float>(&m_storage)) return *f;
    if (const auto* d = std::get_if<double>(&m_storage)) return *d;
    if (auto integer = as_integer()) return static_cast<double>(*integer);
    return std::nullopt;
}

std::optional<bool> GgufValue::as_bool() const {
    if (const auto* b = std::get_if<bool>(&m_storage)) return *b;
    return std::nullopt;
}

GgufArray::GgufArray(GgufValueType element_type) : m_element_type(element_type) {}

GgufArray::GgufArray(GgufValueType element_type, const std::vector<GgufValue>& items)
    : m_element_type(element_type) {
    reserve(items.size());
    for (const auto& item : items) push_back(item);
}

size_t GgufArray::size() const {
    if (m_element_type == GgufValueType::String) return m_strings.size();
    if (m_element_type == GgufValueType::Array) return m_arrays.size();
    return m_bytes.size() / gguf_scalar_size(m_element_type);
}

void GgufArray::require(GgufValueType type) const {
    if (type != m_element_type) {
        throw std::invalid_argument("a GGUF array of " +
                                    std::string(gguf_value_type_name(m_element_type)) + " has no " +
                                    std::string(gguf_value_type_name(type)) + " elements");
    }
}

void GgufArray::check_index(size_t index) const {
    if (index >= size()) {
        throw std::out_of_range("element " + std::to_string(index) + " of a GGUF array of " +
                                std::to_string(size()));
    }
}

template <typename T>
T GgufArray::scalar_at(size_t index) const {
    T value;
    std::memcpy(&value, m_bytes.data() + index * sizeof(T), sizeof(T));
    return value;
}

std::optional<int64_t> GgufArray::integer_at(size_t index) const {
    check_index(index);
    if (gguf_scalar_size(m_element_type) == 0) return std::nullopt;
    return value_at(index).as_integer();
}

std::optional<double> GgufArray::number_at(size_t index) const {
    check_index(index);
    if (gguf_scalar_size(m_element_type) == 0) return std::nullopt;
    return value_at(index).as_number();
}

std::string_view GgufArray::string_at(size_t index) const {
    require(GgufValueType::String);
    return m_strings.at(index);
}

const StringTable& GgufArray::strings() const {
    require(GgufValueType::String);
    return m_strings;
}

const GgufArray& GgufArray::array_at(size_t index) const {
    require(GgufValueType::Array);
    check_index(index);
    return m_arrays[index];
}

GgufValue GgufArray::value_at(size_t index) const {
    check_index(index);
    switch (m_element_type) {
        case GgufValueType::UInt8:
            return GgufValue(scalar_at<uint8_t>(index));
        case GgufValueType::Int8:
            return GgufValue(scalar_at<int8_t>(index));
        case GgufValueType::UInt16:
            return GgufValue(scalar_at<uint16_t>(index));
        case GgufValueType::Int16:
            return GgufValue(scalar_at<int16_t>(index));
        case GgufValueType::UInt32:
            return GgufValue(scalar_at<uint32_t>(index));
        case GgufValueType::Int32:
            return GgufValue(scalar_at<int32_t>(index));
        case GgufValueType::Float32:
            return GgufValue(scalar_at<float>(index));
        case GgufValueType::Bool:
            return GgufValue(scalar_at<uint8_t>(index) != 0);
        case GgufValueType::String:
            return GgufValue(std::string(string_at(index)));
        case GgufValueType::Array:
            return GgufValue(m_arrays[index]);
        case GgufValueType::UInt64:
            return GgufValue(scalar_at<uint64_t>(index));
        case GgufValueType::Int64:
            return GgufValue(scalar_at<int64_t>(index));
        case GgufValueType::Float64:
            return GgufValue(scalar_at<double>(index));
    }
    throw std::invalid_argument("a GGUF array of an unknown element type");
}

// Writes a scalar of the array's type over element `index`, in GGUF's encoding (a bool as one
// byte, 0 or 1).
void GgufArray::put_scalar(const GgufValue& value, size_t index) {
    std::visit(
        [&](const auto& held) {
            using T = std::decay_t<decltype(held)>;
            if constexpr (std::is_same_v<T, bool>) {
                m_bytes[index] = std::byte{held ? uint8_t{1} : uint8_t{0}};
            } else if constexpr (std::is_arithmetic_v<T>) {
                std::memcpy(m_bytes.data() + index * sizeof(T), &held, sizeof(T));
            }
        },
        value.storage());
}

void GgufArray::push_back(const GgufValue& value) {
    require(value.type());
    if (const auto* text = value.as_string()) {
        push_back(std::string_view(*text));
    } else if (const auto* array = value.as_array()) {
        m_arrays.push_back(*array);
    } else {
        m_bytes.resize(m_bytes.size() + gguf_scalar_size(m_element_type));
        put_scalar(value, size() - 1);
    }
}

void GgufArray::push_back(std::string_view text) {
    require(GgufValueType::String);
    m_strings.push_back(text);
}

void GgufArray::push_back(GgufArray array) {
    require(GgufValueType::Array);
    m_arrays.push_back(std::move(array));
}

void GgufArray::set(size_t index, const GgufValue& value) {
    require(value.type());
    check_index(index);
    if (const auto* text = value.as_string()) {
        m_strings.set(index, *text);
    } else if (const auto* array = value.as_array()) {
        m_arrays[index] = *array;
    } else {
        put_scalar(value, index);
    }
}

void GgufArray::reserve(size_t count, size_t characters) {
    if (m_element_type == GgufValueType::String) {
        m_strings.reserve(count, characters);
    } else if (m_element_type == GgufValueType::Array) {
        m_arrays.reserve(count);
    } else {
        m_bytes.reserve(count * gguf_scalar_size(m_element_type));
    }
}

}  // namespace hearth
