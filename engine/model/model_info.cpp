#include "engine/model/model_info.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "engine/compute/kv_cache.h"
#include "engine/text/chat_template.h"

namespace hearth {
namespace {

// llama.cpp's general.file_type values (enum llama_ftype).
std::string file_type_name(int64_t type) {
    static const std::map<int64_t, const char*> kNames = {
        {0, "F32"},      {1, "F16"},      {2, "Q4_0"},       {3, "Q4_1"},    {7, "Q8_0"},
        {8, "Q5_0"},     {9, "Q5_1"},     {10, "Q2_K"},      {11, "Q3_K_S"}, {12, "Q3_K_M"},
        {13, "Q3_K_L"},  {14, "Q4_K_S"},  {15, "Q4_K_M"},    {16, "Q5_K_S"}, {17, "Q5_K_M"},
        {18, "Q6_K"},    {19, "IQ2_XXS"}, {20, "IQ2_XS"},    {21, "Q2_K_S"}, {22, "IQ3_XS"},
        {23, "IQ3_XXS"}, {24, "IQ1_S"},   {25, "IQ4_NL"},    {26, "IQ3_S"},  {27, "IQ3_M"},
        {28, "IQ2_S"},   {29, "IQ2_M"},   {30, "IQ4_XS"},    {31, "IQ1_M"},  {32, "BF16"},
        {36, "TQ1_0"},   {37, "TQ2_0"},   {38, "MXFP4_MOE"},
    };
    const auto found = kNames.find(type);
    return found == kNames.end() ? "" : found->second;
}

std::string family_name(ChatFamily family) {
    switch (family) {
        case ChatFamily::Llama2:
            return "llama2";
        case ChatFamily::Llama3:
            return "llama3";
        case ChatFamily::ChatMl:
            return "chatml";
        case ChatFamily::Mistral:
            return "mistral";
        case ChatFamily::Gemma:
            return "gemma";
        case ChatFamily::Phi3:
            return "phi3";
        case ChatFamily::Zephyr:
            return "zephyr";
        case ChatFamily::None:
            break;
    }
    return "none";
}

// Every type the file's tensors are stored in, most parameters first (ties by name, so the
// order is stable).
std::vector<WeightTypeShare> weight_types(const GgufFile& file) {
    std::map<TensorType, WeightTypeShare> shares;
    for (const auto& tensor : file.tensors()) {
        auto& share = shares[tensor.type];
        share.type = tensor_type_name(static_cast<uint32_t>(tensor.type));
        share.parameters += tensor.elements;
        share.bytes += tensor.bytes;
    }
    std::vector<WeightTypeShare> sorted;
    for (auto& [type, share] : shares) sorted.push_back(std::move(share));
    std::sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) {
        return a.parameters != b.parameters ? a.parameters > b.parameters : a.type < b.type;
    });
    return sorted;
}

ModelInfo model_info_of(const Model& model, const std::filesystem::path& path,
                        const CpuBackendOptions& options) {
    const GgufFile& file = model.file();
    const ModelConfig& config = model.config();
    ModelInfo info;
    info.path = path;
    info.name = config.name.empty() ? path.stem().string() : config.name;
    info.architecture = config.architecture_name;
    for (const auto& tensor : file.tensors()) {
        info.parameters += tensor.elements;
        info.active_parameters += active_share(tensor, config, tensor.elements);
    }
    info.expert_count = config.expert_count;
    info.experts_used = config.experts_used;
    info.weight_types = weight_types(file);
    const auto file_type = file.get_integer("general.file_type");
    info.quantization = file_type ? file_type_name(*file_type) : "";
    // Without general.file_type: the type holding most of the parameters.
    if (info.quantization.empty() && !info.weight_types.empty()) {
        info.quantization = info.weight_types.front().type;
    }
    info.file_bytes = file.file_size();
    info.context_length = config.context_length;
    const std::string chat_template = file.get_string("tokenizer.chat_template").value_or("");
    info.chat_family = family_name(detect_chat_family(chat_template));
    info.has_chat_template = !chat_template.empty();
    info.weight_bytes = file.file_size() + model.weights().owned_bytes();
    info.working_bytes = CpuBackend::working_bytes(model, options);
    info.layer_windows = layer_windows(config);
    info.prefill_step = CpuBackend::largest_step(options);
    set_kv_cache(info, config, options.kv_cache);
    return info;
}

}  // namespace

ModelInfo read_model_info(const std::filesystem::path& path, const CpuBackendOptions& options) {
    const auto model = Model::load(path, {.prefault = false});
    return model_info_of(*model, path, options);
}

ModelInfo read_model_info(const GgufBeginning& beginning, const CpuBackendOptions& options) {
    return read_model_info(std::span(&beginning, 1), options);
}

ModelInfo read_model_info(std::span<const GgufBeginning> parts, const CpuBackendOptions& options) {
    const Model model(std::make_unique<GgufFile>(parts));
    return model_info_of(model, parts.front().name, options);
}

bool is_expert_tensor(const GgufTensor& tensor) {
    return tensor.name.starts_with("blk.") &&
           (tensor.name.ends_with("_exps.weight") || tensor.name.ends_with("_exps.bias"));
}

uint64_t active_share(const GgufTensor& tensor, const ModelConfig& config, uint64_t amount) {
    if (!config.mixture_of_experts() || !is_expert_tensor(tensor)) return amount;
    // The experts are the outermost dimension, so each is an equal, whole slice.
    return amount / static_cast<uint64_t>(config.expert_count) *
           static_cast<uint64_t>(config.experts_used);
}

void set_kv_cache(ModelInfo& info, const ModelConfig& config, KvCacheType type) {
    info.kv_cache = effective_kv_cache_type(config, type);
    info.kv_bytes_per_layer_position = 2 * kv_row_bytes(info.kv_cache, config.kv_dim());
}

uint64_t ModelInfo::kv_bytes(int context) const {
    return kv_cache_bytes(layer_windows, prefill_step, context, kv_bytes_per_layer_position);
}

std::string parameter_count_text(uint64_t parameters) {
    if (parameters >= 1'000'000'000) return fmt::format("{:.1f}B", parameters / 1e9);
    if (parameters >= 1'000'000) return fmt::format("{:.0f}M", parameters / 1e6);
    if (parameters >= 1'000) return fmt::format("{:.0f}K", parameters / 1e3);
    return std::to_string(parameters);
}

}  // namespace hearth
