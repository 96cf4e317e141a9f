#include "engine/format/tensor_types.h"

#include <array>
#include <cstring>
#include <stdexcept>

#include "kernels/dequantize.h"

namespace hearth {
namespace {

struct TypeEntry {
    TensorType type;
    TensorTypeInfo info;
};

constexpr std::array<TypeEntry, 16> kSupported{{
    {TensorType::F32, {"F32", 1, 4}},
    {TensorType::F16, {"F16", 1, 2}},
    {TensorType::BF16, {"BF16", 1, 2}},
    {TensorType::Q8_0, {"Q8_0", 32, 34}},
    {TensorType::Q4_0, {"Q4_0", 32, 18}},
    {TensorType::Q4_1, {"Q4_1", 32, 20}},
    {TensorType::Q5_0, {"Q5_0", 32, 22}},
    {TensorType::Q5_1, {"Q5_1", 32, 24}},
    {TensorType::Q2_K, {"Q2_K", 256, 84}},
    {TensorType::Q3_K, {"Q3_K", 256, 110}},
    {TensorType::Q4_K, {"Q4_K", 256, 144}},
    {TensorType::Q5_K, {"Q5_K", 256, 176}},
    {TensorType::Q6_K, {"Q6_K", 256, 210}},
    {TensorType::IQ4_NL, {"IQ4_NL", 32, 18}},
    {TensorType::IQ4_XS, {"IQ4_XS", 256, 136}},
    {TensorType::MXFP4, {"MXFP4", 32, 17}},
}};

// ggml's names for every id it has assigned, indexed by id ("" where the id was retired).
constexpr std::array<std::string_view, 40> kAllNames{
    "F32",   "F16",        "Q4_0",       "Q4_1",       "Q4_2",     "Q4_3",     "Q5_0",
    "Q5_1",  "Q8_0",       "Q8_1",       "Q2_K",       "Q3_K",     "Q4_K",     "Q5_K",
    "Q6_K",  "Q8_K",       "IQ2_XXS",    "IQ2_XS",     "IQ3_XXS",  "IQ1_S",    "IQ4_NL",
    "IQ3_S", "IQ2_S",      "IQ4_XS",     "I8",         "I16",      "I32",      "I64",
    "F64",   "IQ1_M",      "BF16",       "Q4_0_4_4",   "Q4_0_4_8", "Q4_0_8_8", "TQ1_0",
    "TQ2_0", "IQ4_NL_4_4", "IQ4_NL_4_8", "IQ4_NL_8_8", "MXFP4",
};

}  // namespace

std::optional<TensorType> tensor_type_from_id(uint32_t id) {
    for (const auto& entry : kSupported) {
        if (static_cast<uint32_t>(entry.type) == id) return entry.type;
    }
    return std::nullopt;
}

const TensorTypeInfo& tensor_type_info(TensorType type) {
    for (const auto& entry : kSupported) {
        if (entry.type == type) return entry.info;
    }
    throw std::logic_error("tensor_type_info: unsupported type");
}

std::string supported_type_names() {
    std::string names;
    for (const auto& entry : kSupported) {
        if (!names.empty()) names += ", ";
        names += entry.info.name;
    }
    return names;
}

std::string tensor_type_name(uint32_t id) {
    if (id < kAllNames.size() && !kAllNames[id].empty()) return std::string(kAllNames[id]);
    return "unknown type " + std::to_string(id);
}

size_t tensor_bytes(TensorType type, uint64_t elements) {
    const auto& info = tensor_type_info(type);
    if (elements % static_cast<uint64_t>(info.block_elements) != 0) {
        throw std::invalid_argument("element count is not a whole number of blocks");
    }
    return elements / static_cast<uint64_t>(info.block_elements) *
           static_cast<uint64_t>(info.block_bytes);
}

void dequantize(TensorType type, const void* source, float* out, size_t count) {
    using namespace kernels;
    switch (type) {
        case TensorType::F32:
            std::memcpy(out, source, count * sizeof(float));
            return;
        case TensorType::F16:
            dequantize_f16(source, out, count);
            return;
        case TensorType::BF16:
            dequantize_bf16(source, out, count);
            return;
        case TensorType::Q8_0:
            dequantize_q8_0(source, out, count);
            return;
        case TensorType::Q4_0:
            dequantize_q4_0(source, out, count);
            return;
        case TensorType::Q4_1:
            dequantize_q4_1(source, out, count);
            return;
        case TensorType::Q5_0:
            dequantize_q5_0(source, out, count);
            return;
        case TensorType::Q5_1:
            dequantize_q5_1(source, out, count);
            return;
        case TensorType::Q4_K:
            dequantize_q4_k(source, out, count);
            return;
        case TensorType::Q5_K:
            dequantize_q5_k(source, out, count);
            return;
        case TensorType::Q6_K:
            dequantize_q6_k(source, out, count);
            return;
        case TensorType::Q2_K:
            dequantize_q2_k(source, out, count);
            return;
        case TensorType::Q3_K:
            dequantize_q3_k(source, out, count);
            return;
        case TensorType::IQ4_NL:
            dequantize_iq4_nl(source, out, count);
            return;
        case TensorType::IQ4_XS:
            dequantize_iq4_xs(source, out, count);
            return;
        case TensorType::MXFP4:
            dequantize_mxfp4(source, out, count);
            return;
    }
    throw std::logic_error("dequantize: unsupported type");
}

}  // namespace hearth
