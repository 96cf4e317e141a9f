// What the model picker shows about a GGUF file before loading it, read from its metadata
// (pages are mapped, not pre-faulted, so listing many large files is quick), and the exact
// memory the CPU backend would need for it at a given context length and KV cache type.
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "engine/compute/cpu_backend.h"

namespace hearth {

// How much of a file one weight type holds.
struct WeightTypeShare {
    std::string type;         // "Q3_K", "F32", ... (ggml's type names)
    uint64_t parameters = 0;  // elements of the tensors stored in it
    uint64_t bytes = 0;
};

struct ModelInfo {
    std::filesystem::path path;
    std::string name;          // general.name, else the file name
    std::string architecture;  // llama, qwen2, ...
    uint64_t parameters = 0;   // elements of all tensors
    // What one token reads: everything but the experts the router did not choose, so for a
    // mixture of experts experts_used / expert_count of each expert tensor (parameters for a
    // dense model).
    uint64_t active_parameters = 0;
    int expert_count = 0;  // 0: dense
    int experts_used = 0;
    std::string quantization;  // Q4_K_M, Q8_0, F16, ...
    // The file's quantisation mix: every type its tensors are stored in, most parameters first.
    std::vector<WeightTypeShare> weight_types;
    uint64_t file_bytes = 0;
    int context_length = 0;   // trained
    std::string chat_family;  // llama3, chatml, ... or "none"
    // Whether the file has a chat template at all: without one the model is given the
    // conversation as plain text and continues it rather than answering it.
    bool has_chat_template = false;
    uint64_t weight_bytes = 0;   // the mapped file plus the model's own float vectors
    uint64_t working_bytes = 0;  // the backend's scratch
    // The KV cache at a context length (sliding-window layers keep rings, not the context).
    std::vector<int> layer_windows;
    int prefill_step = 1;                     // the largest, which sizes the rings
    KvCacheType kv_cache = KvCacheType::F16;  // the type the options ask for, as the model gets it
    uint64_t kv_bytes_per_layer_position = 0;
    std::string sha256;  // of the whole file, hex; filled in when the model is loaded

    uint64_t kv_bytes(int context) const;
    uint64_t memory_bytes(int context) const {
        return weight_bytes + working_bytes + kv_bytes(context);
    }
};

// Throws LoadError naming what is wrong with the file (the same checks as loading it). The KV
// figures follow options.kv_cache.
ModelInfo read_model_info(const std::filesystem::path& path, const CpuBackendOptions& options = {});

// The same from a file's first bytes alone (a download not yet made): every figure but sha256
// is what read_model_info gives for the whole file. Throws LoadError as read_model_info does, and
// GgufHeaderIncomplete when the header runs past `beginning.bytes` (read more and call again).
ModelInfo read_model_info(const GgufBeginning& beginning, const CpuBackendOptions& options = {});
// The same for a model split into parts, from every part's beginning, first part first: what
// read_model_info gives for the first part on disk with all its parts next to it.
ModelInfo read_model_info(std::span<const GgufBeginning> parts,
                          const CpuBackendOptions& options = {});

// Whether `tensor` holds a mixture-of-experts layer's stacked experts (ffn_{gate,up,down}_exps,
// their weights or biases), of which a token reads only the chosen experts' slices.
bool is_expert_tensor(const GgufTensor& tensor);
// What one token reads of `tensor`'s `amount` (its elements or its bytes): experts_used of
// `config`'s expert_count equal slices of an expert tensor, all of any other.
uint64_t active_share(const GgufTensor& tensor, const ModelConfig& config, uint64_t amount);

// Sets the KV figures of `info` for a cache of `type` (as `config` gets it).
void set_kv_cache(ModelInfo& info, const ModelConfig& config, KvCacheType type);

// "1.1B", "135M": how parameter counts are usually written.
std::string parameter_count_text(uint64_t parameters);

}  // namespace hearth
