#include "tests/support/random_weights.h"

#include <cstring>

#include "kernels/half.h"
#include "kernels/quantize.h"

namespace hearth {

using namespace kernels;

std::vector<float> random_floats(size_t n, std::mt19937& random, float spread) {
    std::normal_distribution<float> normal(0.0f, spread);
    std::vector<float> values(n);
    for (auto& v : values) v = normal(random);
    return values;
}

namespace {

// Where a block keeps its f16 scale (and minimum), for the formats filled with random bytes.
std::vector<size_t> f16_fields(TensorType type) {
    switch (type) {
        case TensorType::Q5_0:
        case TensorType::IQ4_NL:
        case TensorType::IQ4_XS:
            return {0};
        case TensorType::Q2_K:
            return {80, 82};
        case TensorType::Q3_K:
            return {108};
        default:
            return {0, 2};  // Q4_1, Q5_1, Q5_K: scale then minimum
    }
}

}  // namespace

// Random bytes, then every f16 scale field made a sane number so the block is a plausible one.
std::vector<std::byte> random_weights(TensorType type, size_t n, std::mt19937& random) {
    const auto& info = tensor_type_info(type);
    std::vector<std::byte> bytes(tensor_bytes(type, n));
    const auto as_floats = random_floats(n, random, 0.05f);
    switch (type) {
        case TensorType::F32:
            std::memcpy(bytes.data(), as_floats.data(), bytes.size());
            return bytes;
        case TensorType::F16:
            quantize_f16(as_floats.data(), bytes.data(), n);
            return bytes;
        case TensorType::BF16:
            quantize_bf16(as_floats.data(), bytes.data(), n);
            return bytes;
        case TensorType::Q8_0:
            quantize_q8_0(as_floats.data(), bytes.data(), n);
            return bytes;
        case TensorType::Q4_0:
            quantize_q4_0(as_floats.data(), bytes.data(), n);
            return bytes;
        case TensorType::Q4_K:
            quantize_q4_k(as_floats.data(), bytes.data(), n);
            return bytes;
        case TensorType::Q6_K:
            quantize_q6_k(as_floats.data(), bytes.data(), n);
            return bytes;
        default:
            break;
    }
    std::uniform_int_distribution<int> byte(0, 255);
    for (auto& b : bytes) b = static_cast<std::byte>(byte(random));
    if (type == TensorType::MXFP4) {
        // Exponents 2^-10..2^-5 (the doubled values reach 12): weights of the shared files' size.
        std::uniform_int_distribution<int> exponent(118, 123);
        for (size_t block = 0; block < n / info.block_elements; ++block)
            bytes[block * info.block_bytes] = static_cast<std::byte>(exponent(random));
        return bytes;
    }
    for (size_t block = 0; block < n / info.block_elements; ++block) {
        for (const size_t offset : f16_fields(type)) {
            const uint16_t value =
                float_to_half(0.01f * static_cast<float>(byte(random) + 1) / 256.0f);
            std::memcpy(bytes.data() + block * info.block_bytes + offset, &value, 2);
        }
    }
    return bytes;
}

}  // namespace hearth
