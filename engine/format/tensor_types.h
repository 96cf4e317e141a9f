// The weight formats Hearth reads from GGUF files, their block geometry, and dequantisation.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace hearth {

// Values are ggml's type ids, serialised in GGUF files: do not change or reuse.
enum class TensorType : uint32_t {
    F32 = 0,
    F16 = 1,
    Q4_0 = 2,
    Q4_1 = 3,
    Q5_0 = 6,
    Q5_1 = 7,
    Q8_0 = 8,
    Q2_K = 10,
    Q3_K = 11,
    Q4_K = 12,
    Q5_K = 13,
    Q6_K = 14,
    IQ4_NL = 20,
    IQ4_XS = 23,
    BF16 = 30,
    MXFP4 = 39,
};

struct TensorTypeInfo {
    std::string_view name;
    int block_elements;  // elements per block; a row holds a whole number of blocks
    int block_bytes;
};

// Supported types only; anything else in a file is refused by name at load.
std::optional<TensorType> tensor_type_from_id(uint32_t id);
const TensorTypeInfo& tensor_type_info(TensorType type);
// "F32, F16, …": the supported types' names, for an error that refuses another.
std::string supported_type_names();
// Names every id ggml has used ("Q2_K", "IQ4_XS", …) so an error can say what the file holds.
std::string tensor_type_name(uint32_t id);

// Bytes of `elements` values; `elements` must be a multiple of the block size.
size_t tensor_bytes(TensorType type, uint64_t elements);

// Scalar reference dequantisation of `count` elements (a whole number of blocks).
void dequantize(TensorType type, const void* source, float* out, size_t count);

}  // namespace hearth
