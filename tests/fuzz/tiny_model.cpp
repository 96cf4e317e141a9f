#include "tests/fuzz/tiny_model.h"

#include <array>
#include <cstring>
#include <optional>
#include <string>
#include <type_traits>

#include "engine/format/gguf_writer.h"

namespace hearth::fuzz {
namespace {

constexpr size_t kMaxArrayItems = 64;
constexpr size_t kMaxStringBytes = 4096;
constexpr int64_t kMaxLayers = 2;
constexpr std::array<int64_t, 5> kFactors{32, 16, 8, 4, 2};
// The architecture keys that are widths: divided by the factor like the tensors' shapes.
constexpr std::array<std::string_view, 6> kWidthKeys{
    "embedding_length",       "feed_forward_length",  "attention.key_length",
    "attention.value_length", "rope.dimension_count", "expert_feed_forward_length"};

constexpr uint64_t kMaxVocabulary = 64;

struct Plan {
    std::string prefix;  // "<architecture>."
    int64_t factor = 1;
    uint64_t vocabulary = 0;  // token_embd's rows: cut to kMaxVocabulary rather than divided

    uint64_t shrunk(uint64_t extent) const {
        if (extent == vocabulary) return std::min(vocabulary, kMaxVocabulary);
        return extent == 1 ? 1 : extent / static_cast<uint64_t>(factor);
    }
};

// The layer a tensor belongs to ("blk.N."), or -1.
int64_t layer_of(const std::string& name) {
    if (!name.starts_with("blk.")) return -1;
    return std::stoll(name.substr(4));
}

bool is_width_key(const Plan& plan, const std::string& key) {
    if (plan.prefix.empty() || !key.starts_with(plan.prefix)) return false;
    const std::string_view rest = std::string_view(key).substr(plan.prefix.size());
    for (const auto width : kWidthKeys) {
        if (rest == width) return true;
    }
    return false;
}

bool factor_fits(const GgufFile& file, const Plan& plan, int64_t factor) {
    for (const auto& [key, value] : file.metadata()) {
        if (is_width_key(plan, key) && value.as_integer().value_or(0) % factor != 0) return false;
    }
    const int64_t embedding = file.get_integer(plan.prefix + "embedding_length").value_or(0);
    const int64_t heads =
        std::max<int64_t>(1, file.get_integer(plan.prefix + "attention.head_count").value_or(1));
    const int64_t head =
        file.get_integer(plan.prefix + "attention.key_length").value_or(embedding / heads);
    const int64_t rope = file.get_integer(plan.prefix + "rope.dimension_count").value_or(head);
    if (head % factor != 0 || head / factor < 2 || rope % factor != 0 || (rope / factor) % 2 != 0) {
        return false;
    }
    for (const auto& tensor : file.tensors()) {
        for (const uint64_t extent : tensor.shape) {
            if (extent != 1 && extent != plan.vocabulary &&
                extent % static_cast<uint64_t>(factor) != 0) {
                return false;
            }
        }
    }
    return true;
}

Plan plan_for(const GgufFile& file) {
    Plan plan;
    const auto architecture = file.get_string("general.architecture");
    if (!architecture || file.tensors().empty()) return plan;
    plan.prefix = *architecture + ".";
    if (const auto* embedding = file.find_tensor("token_embd.weight");
        embedding != nullptr && embedding->shape.size() == 2) {
        plan.vocabulary = embedding->shape[1];
    }
    for (const int64_t factor : kFactors) {
        if (factor_fits(file, plan, factor)) {
            plan.factor = factor;
            break;
        }
    }
    return plan;
}

// The same integer type, holding `value`.
GgufValue integer_like(const GgufValue& original, int64_t value) {
    return std::visit(
        [&](const auto& held) -> GgufValue {
            using T = std::decay_t<decltype(held)>;
            if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
                return GgufValue(static_cast<T>(value));
            } else {
                return original;
            }
        },
        original.storage());
}

std::optional<GgufValue> shrunk_value(const Plan& plan, const std::string& key,
                                      const GgufValue& value) {
    if (const auto* text = value.as_string(); text != nullptr && text->size() > kMaxStringBytes) {
        return std::nullopt;
    }
    if (const auto* array = value.as_array()) {
        GgufArray cut(array->element_type());
        for (size_t i = 0; i < array->size() && i < kMaxArrayItems; ++i) {
            cut.push_back(array->value_at(i));
        }
        return GgufValue(std::move(cut));
    }
    if (key == plan.prefix + "vocab_size") {
        return integer_like(value, static_cast<int64_t>(plan.shrunk(*value.as_integer())));
    }
    if (is_width_key(plan, key)) return integer_like(value, *value.as_integer() / plan.factor);
    if (key == plan.prefix + "block_count") {
        return integer_like(value, std::min(*value.as_integer(), kMaxLayers));
    }
    return value;
}

// The tensor's first elements in the smaller shape: in its own type when the rows still hold
// whole blocks, else dequantised to F32.
void add_shrunk_tensor(const Plan& plan, const GgufTensor& tensor, GgufWriter& writer) {
    std::vector<uint64_t> shape;
    uint64_t elements = 1;
    for (const uint64_t extent : tensor.shape) {
        shape.push_back(plan.shrunk(extent));
        elements *= shape.back();
    }
    const auto block = static_cast<uint64_t>(tensor_type_info(tensor.type).block_elements);
    if (shape[0] % block == 0) {
        const size_t bytes = tensor_bytes(tensor.type, elements);
        writer.add_tensor(tensor.name, tensor.type, shape,
                          std::vector<std::byte>(tensor.data, tensor.data + bytes));
        return;
    }
    std::vector<float> values((elements + block - 1) / block * block);
    dequantize(tensor.type, tensor.data, values.data(), values.size());
    std::vector<std::byte> bytes(elements * sizeof(float));
    std::memcpy(bytes.data(), values.data(), bytes.size());
    writer.add_tensor(tensor.name, TensorType::F32, shape, std::move(bytes));
}

}  // namespace

std::vector<std::byte> tiny_twin(const GgufFile& file) {
    const Plan plan = plan_for(file);
    GgufWriter writer(static_cast<uint32_t>(file.alignment()));
    for (const auto& [key, value] : file.metadata()) {
        if (key == "general.alignment") continue;  // the writer states its own
        if (auto shrunk = shrunk_value(plan, key, value)) writer.set(key, std::move(*shrunk));
    }
    for (const auto& tensor : file.tensors()) {
        if (layer_of(tensor.name) < kMaxLayers) add_shrunk_tensor(plan, tensor, writer);
    }
    return writer.serialize();
}

}  // namespace hearth::fuzz
