#include "engine/format/gguf_value.h"

#include <limits>

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

}  // namespace hearth
